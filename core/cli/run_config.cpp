#include "run_config.hpp"

#include <sortie/model/error.hpp>
#include <string>
#include <vector>

namespace sortie::cli {
namespace {

constexpr const char* kRunSection = "cli:run";
constexpr const char* kSchedulerKey = "scheduler";

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
  config.check_keys(kRunSection, {kSchedulerKey}, "defaults of `sortie run` options");
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

}  // namespace sortie::cli
