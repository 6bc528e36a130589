// The catalogue commands: `sortie runopts [SCHEDULER]`, `sortie resources [NAME]` and
// `sortie builtins [--print NAME]`.
#include <cstdio>
#include <sortie/core/component.hpp>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/core/runopts.hpp>
#include <string>

#include "commands.hpp"

namespace sortie::cli {

namespace {

bool wants_help(const Args& args) {
  for (const auto& word : args) {
    if (word == "--help" || word == "-h") return true;
  }
  return false;
}

std::string describe_resource(const core::Resource& res) {
  std::string text = "cpu " + (res.cpu >= 0 ? std::to_string(res.cpu) : std::string("-"));
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  text += ", gpu " + (res.gpu >= 0 ? std::to_string(res.gpu) : std::string("-"));
  text += ", memMB " + (res.mem_mb >= 0 ? std::to_string(res.mem_mb) : std::string("-"));
  for (const auto& [key, value] : res.capabilities) text += ", " + key + "=" + value;
  for (const auto& [key, count] : res.devices)
    text += ", device " + key + " x" + std::to_string(count);
  return text;
}

}  // namespace

int cmd_runopts(CliContext& ctx, const Args& args) {
  if (wants_help(args)) {
    std::printf("usage: sortie runopts [SCHEDULER]\n");
    return kExitOk;
  }
  std::vector<std::string> names;
  if (!args.empty()) {
    names.push_back(args[0]);
  } else {
    for (const auto* entry : ctx.registry().entries(registry::Group::kSchedulers)) {
      names.push_back(entry->name);
    }
  }
  int status = kExitOk;
  for (const auto& name : names) {
    try {
      auto scheduler = ctx.scheduler(name, ctx.options().session);
      const auto opts = core::parse_runopts(scheduler->run_options(), scheduler->context());
      std::printf("%s:\n", name.c_str());
      for (const auto& opt : opts) {
        std::string detail = core::to_string(opt.type);
        if (opt.required) detail += ", required";
        if (opt.default_json) detail += ", default " + *opt.default_json;
        std::printf("    %s (%s)\n        %s\n", opt.name.c_str(), detail.c_str(),
                    opt.help.c_str());
      }
    } catch (const core::Error& e) {
      if (!args.empty()) throw;
      std::fprintf(stderr, "sortie runopts: %s: %s\n", name.c_str(), e.what());
      status = kExitBackend;  // report every scheduler, then fail
    }
  }
  return status;
}

int cmd_resources(CliContext& ctx, const Args& args) {
  if (wants_help(args)) {
    std::printf("usage: sortie resources [NAME]\n");
    return kExitOk;
  }
  if (!args.empty()) {
    auto resource = ctx.named_resource(args[0]);
    if (!resource) {
      std::string message = "unknown named resource '" + args[0] + "'";
      auto close = ctx.registry().close_names(registry::Group::kNamedResources, args[0]);
      if (!close.empty()) message += " (did you mean '" + close.front() + "'?)";
      throw core::Error(SORTIE_NOT_FOUND, message);
    }
    std::printf("%s\n", core::to_json(*resource).c_str());
    return kExitOk;
  }
  for (const auto* entry : ctx.registry().entries(registry::Group::kNamedResources)) {
    std::string detail;
    if (!entry->plugin) {
      detail = describe_resource(core::resource_from_json(entry->data_json, entry->manifest_path));
    } else {
      detail = "(provided by plugin " + entry->plugin->name + ")";
    }
    std::printf("%-28s %s\n", entry->name.c_str(), detail.c_str());
  }
  return kExitOk;
}

int cmd_builtins(CliContext& ctx, const Args& args) {
  if (args.size() == 2 && args[0] == "--print") {
    const registry::Entry* entry = ctx.registry().find(registry::Group::kComponents, args[1]);
    if (entry == nullptr) {
      throw core::Error(SORTIE_NOT_FOUND, "unknown component '" + args[1] + "'");
    }
    const auto component = core::parse_component(entry->name, entry->description, entry->data_json,
                                                 entry->manifest_path);
    std::fputs(core::component_help(component).c_str(), stdout);
    std::printf("\ndefined in %s\n", entry->manifest_path.c_str());
    return kExitOk;
  }
  if (!args.empty()) {
    std::printf("usage: sortie builtins [--print COMPONENT]\n");
    return wants_help(args) ? kExitOk : kExitUsage;
  }
  const auto entries = ctx.registry().entries(registry::Group::kComponents);
  std::printf("Found %zu components:\n", entries.size());
  for (const auto* entry : entries) {
    std::printf("  %-20s %s\n", entry->name.c_str(), entry->description.c_str());
  }
  return kExitOk;
}

}  // namespace sortie::cli
