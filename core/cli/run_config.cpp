#include "run_config.hpp"

#include <sortie/model/error.hpp>
#include <string>
#include <vector>

namespace sortie::cli {
namespace {

constexpr const char* kRunSection = "cli:run";
constexpr const char* kSchedulerKey = "scheduler";
constexpr const char* kComponentKey = "component";

// A component file is Python that `sortie run` executes here, so an untrusted file may name only
// the registry's components (whose programs the user installed).
void check_component(session::Session& ctx, const model::ConfigValue& component) {
  const std::string setting =
      component.origin + ": [" + kRunSection + "] " + kComponentKey + " = " + component.value;
  if (names_component_file(component.value)) {
    if (component.trusted) return;
    const std::string file = component.origin.substr(0, component.origin.rfind(':'));
    throw Error::invalid_argument(
        setting +
        " names a Python file that would run here, so it is not read from a file found in the "
        "working directory unless you trust that file: read it, then run `sortie config trust " +
        file + "` (or name the component on the command line; docs/config-trust.md)");
  }
  if (ctx.registry().find(registry::Group::kComponents, component.value) == nullptr) {
    throw Error::invalid_argument(setting +
                                  ": no such component; give one `sortie builtins` lists, or "
                                  "FILE.py:FUNCTION");
  }
}

}  // namespace

const model::ConfigFile& checked_run_config(session::Session& ctx) {
  const model::ConfigFile& config = ctx.config();
  if (config.files_read().empty()) return config;
  std::vector<std::string> sections = {kRunSection};
  for (const auto* entry : ctx.registry().entries(registry::Group::kSchedulers)) {
    sections.push_back(entry->name);
  }
  for (const auto* entry : ctx.registry().entries(registry::Group::kComponents)) {
    sections.push_back("component:" + entry->name);
  }
  config.check_sections(sections);
  config.check_keys(kRunSection, {kSchedulerKey, kComponentKey},
                    "defaults of `sortie run` options");
  if (auto scheduler = configured_scheduler(config);
      scheduler && ctx.registry().find(registry::Group::kSchedulers, scheduler->value) == nullptr) {
    throw Error::invalid_argument(scheduler->origin + ": [" + kRunSection + "] " + kSchedulerKey +
                                  " = " + scheduler->value + ": " +
                                  ctx.unknown_scheduler_message(scheduler->value));
  }
  return config;
}

std::optional<model::ConfigValue> configured_scheduler(const model::ConfigFile& config) {
  return config.get(kRunSection, kSchedulerKey);
}

std::optional<model::ConfigValue> configured_component(session::Session& ctx,
                                                       const model::ConfigFile& config) {
  auto component = config.get(kRunSection, kComponentKey);
  if (component) check_component(ctx, *component);
  return component;
}

bool names_component_file(const std::string& component) {
  const size_t colon = component.rfind(':');
  return colon != std::string::npos && colon + 1 < component.size() && colon >= 3 &&
         component.compare(colon - 3, 3, ".py") == 0;
}

}  // namespace sortie::cli
