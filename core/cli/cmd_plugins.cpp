// `sortie plugins list` (reads manifests only; loads no library) and `sortie plugins show NAME`
// (loads the plugin and reports what it negotiated).
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sortie/core/error.hpp>

#include "commands.hpp"
#include "json_text.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

constexpr registry::Group kGroups[] = {
    registry::Group::kSchedulers, registry::Group::kPackagers, registry::Group::kImageProviders,
    registry::Group::kNamedResources, registry::Group::kComponents};

std::string provider_of(const registry::Entry& entry) {
  return entry.plugin ? entry.plugin->name + " " + entry.plugin->version : "(data)";
}

int list_plugins(CliContext& ctx, const Args& args) {
  std::string group_text;
  po::options_description desc("plugins list options");
  desc.add_options()("help,h", "show this help")(
      "group", po::value(&group_text), "only this group, e.g. sortie.schedulers")("json",
                                                                                  "print JSON");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << "usage: sortie plugins list [options]\n\n" << desc;
    return kExitOk;
  }
  std::optional<registry::Group> only;
  if (!group_text.empty()) {
    only = registry::group_from_string(group_text);
    if (!only) throw core::Error("--group '" + group_text + "': unknown group");
  }
  const registry::Registry& reg = ctx.registry();
  if (vm.count("json") != 0) {
    JsonText out;
    out.begin_object().key("schema").string("sortie.plugin_list/1").key("entries").begin_array();
    for (registry::Group group : kGroups) {
      if (only && *only != group) continue;
      for (const auto* entry : reg.entries(group)) {
        out.begin_object()
            .key("group")
            .string(registry::to_string(group))
            .key("name")
            .string(entry->name)
            .key("description")
            .string(entry->description)
            .key("manifest")
            .string(entry->manifest_path);
        if (entry->plugin) {
          out.key("plugin").string(entry->plugin->name);
          out.key("library").string(entry->plugin->library_path);
        }
        out.end_object();
      }
    }
    out.end_array().key("shadowed").begin_array();
    for (const auto& shadow : reg.shadowed()) {
      out.begin_object()
          .key("group")
          .string(registry::to_string(shadow.hidden.group))
          .key("name")
          .string(shadow.hidden.name)
          .key("hidden_manifest")
          .string(shadow.hidden.manifest_path)
          .key("winner_manifest")
          .string(shadow.winner_manifest)
          .end_object();
    }
    out.end_array().key("problems").begin_array();
    for (const auto& problem : reg.problems()) {
      out.begin_object()
          .key("manifest")
          .string(problem.manifest_path)
          .key("message")
          .string(problem.message)
          .end_object();
    }
    out.end_array().end_object();
    std::printf("%s\n", out.str().c_str());
    return kExitOk;
  }
  std::printf("%-24s %-24s %-22s %s\n", "GROUP", "NAME", "PROVIDED BY", "MANIFEST");
  for (registry::Group group : kGroups) {
    if (only && *only != group) continue;
    for (const auto* entry : reg.entries(group)) {
      std::printf("%-24s %-24s %-22s %s\n", registry::to_string(group), entry->name.c_str(),
                  provider_of(*entry).c_str(), entry->manifest_path.c_str());
    }
  }
  if (!reg.shadowed().empty()) std::printf("\nshadowed (first found wins):\n");
  for (const auto& shadow : reg.shadowed()) {
    std::printf("  %s:%s in %s (hidden by %s)\n", registry::to_string(shadow.hidden.group),
                shadow.hidden.name.c_str(), shadow.hidden.manifest_path.c_str(),
                shadow.winner_manifest.c_str());
  }
  if (!reg.problems().empty()) std::printf("\nskipped manifests:\n");
  for (const auto& problem : reg.problems()) {
    std::printf("  %s: %s\n", problem.manifest_path.c_str(), problem.message.c_str());
  }
  std::printf("\nsearch path:\n");
  for (const auto& dir : reg.dirs()) {
    std::printf("  %s (%s)\n", dir.path.c_str(), dir.source.c_str());
  }
  return kExitOk;
}

int show_plugin(CliContext& ctx, const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::printf("usage: sortie plugins show NAME   (a plugin name or a component name)\n");
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string& name = args[0];
  const registry::Registry& reg = ctx.registry();
  std::shared_ptr<const registry::PluginLibrary> library;
  for (registry::Group group : kGroups) {
    for (const auto* entry : reg.entries(group)) {
      if (entry->plugin && (entry->name == name || entry->plugin->name == name)) {
        library = entry->plugin;
        break;
      }
    }
    if (library) break;
  }
  if (!library) {
    throw core::Error(SORTIE_NOT_FOUND, "no plugin or plugin component named '" + name +
                                            "' (see `sortie plugins list`)");
  }
  const core::LoadedPlugin& plugin = ctx.plugin_host().load(*library);
  std::printf(
      "plugin %s %s\n  ABI: %u.%u (manifest declares %u.%u-%u.%u)\n  library: %s\n"
      "  manifest: %s\n  components:\n",
      plugin.name.c_str(), plugin.version.c_str(), SORTIE_ABI_MAJOR(plugin.abi_version),
      SORTIE_ABI_MINOR(plugin.abi_version), SORTIE_ABI_MAJOR(library->abi_min),
      SORTIE_ABI_MINOR(library->abi_min), SORTIE_ABI_MAJOR(library->abi_max),
      SORTIE_ABI_MINOR(library->abi_max), plugin.library_path.c_str(),
      plugin.manifest_path.c_str());
  for (const sortie_component* component : plugin.components) {
    std::printf("    %-16s %-20s %s\n", core::component_kind_name(component->kind), component->name,
                component->description != nullptr ? component->description : "");
  }
  for (const auto& line : ctx.plugin_host().diagnostics())
    std::printf("  note: %s\n", line.c_str());
  return kExitOk;
}

}  // namespace

int cmd_plugins(CliContext& ctx, const Args& args) {
  const std::string sub = args.empty() ? "list" : args[0];
  const Args rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (sub == "list") return list_plugins(ctx, rest);
  if (sub == "show") return show_plugin(ctx, rest);
  if (sub == "--help" || sub == "-h") {
    std::printf(
        "usage: sortie plugins list [--group G] [--json]\n"
        "       sortie plugins show NAME\n");
    return kExitOk;
  }
  throw core::Error("unknown plugins subcommand '" + sub + "' (expected list or show)");
}

}  // namespace sortie::cli
