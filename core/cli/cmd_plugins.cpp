// `sortie plugins list` (reads manifests only; loads no library), `sortie plugins show NAME`
// (loads the plugin and reports what it negotiated) and `sortie plugins doctor [NAME...]` (runs
// every plugin in a helper process and exercises each component).
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/plugin_host/plugin_faults.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <sortie/session/json_text.hpp>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "commands.hpp"
#include "printable.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

constexpr registry::Group kGroups[] = {
    registry::Group::kSchedulers,     registry::Group::kPackagers,
    registry::Group::kImageProviders, registry::Group::kNamedResources,
    registry::Group::kComponents,     registry::Group::kExecutors};

// Why the entry's plugin library cannot be loaded, as far as a stat tells (listing loads
// nothing); empty when it is there or the entry is data.
std::string library_problem(const registry::Entry& entry) {
  if (!entry.plugin) return "";
  std::error_code error;
  const auto status = std::filesystem::status(entry.plugin->library_path, error);
  if (std::filesystem::is_regular_file(status)) return "";
  const std::string what = !std::filesystem::exists(status) ? "does not exist"
                           : error                          ? "cannot be read: " + error.message()
                                                            : "is not a file";
  return "its library " + entry.plugin->library_path + " " + what +
         "; reinstall the plugin or fix 'library' in " + entry.manifest_path;
}

std::string provider_of(const registry::Entry& entry) {
  if (!entry.plugin) return "(data)";
  return entry.plugin->name + " " + entry.plugin->version +
         (library_problem(entry).empty() ? "" : " BROKEN");
}

int list_plugins(session::Session& ctx, const Args& args) {
  std::string group_text;
  po::options_description desc("plugins list options");
  desc.add_options()("help,h", "show this help")("group", po::value(&group_text),
                                                 "only this group, e.g. sortie.schedulers")(
      "json", "print JSON (docs/cli-json.md)");
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
    if (!only) throw Error::invalid_argument("--group '" + group_text + "': unknown group");
  }
  const registry::Registry& reg = ctx.registry();
  if (vm.count("json") != 0) {
    session::JsonText out;
    out.begin_object().key("schema").string("sortie.cli.plugins/1").key("entries").begin_array();
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
        out.key("plugin").string_or_null(entry->plugin ? entry->plugin->name : "");
        out.key("library").string_or_null(entry->plugin ? entry->plugin->library_path : "");
        out.key("broken").string_or_null(library_problem(*entry));
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
                  provider_of(*entry).c_str(), printable(entry->manifest_path).c_str());
    }
  }
  bool broken_heading = false;
  for (registry::Group group : kGroups) {
    if (only && *only != group) continue;
    for (const auto* entry : reg.entries(group)) {
      const std::string problem = library_problem(*entry);
      if (problem.empty()) continue;
      if (!broken_heading) std::printf("\nbroken (cannot be used):\n");
      broken_heading = true;
      std::printf("  %s:%s: %s\n", registry::to_string(group), entry->name.c_str(),
                  printable(problem).c_str());
    }
  }
  if (!reg.shadowed().empty()) std::printf("\nshadowed (first found wins):\n");
  for (const auto& shadow : reg.shadowed()) {
    std::printf("  %s:%s in %s (hidden by %s)\n", registry::to_string(shadow.hidden.group),
                shadow.hidden.name.c_str(), printable(shadow.hidden.manifest_path).c_str(),
                printable(shadow.winner_manifest).c_str());
  }
  if (!reg.problems().empty()) std::printf("\nskipped manifests:\n");
  for (const auto& problem : reg.problems()) {
    std::printf("  %s: %s\n", printable(problem.manifest_path).c_str(),
                printable(problem.message).c_str());
  }
  std::printf("\nsearch path:\n");
  for (const auto& dir : reg.dirs()) {
    std::printf("  %s (%s)\n", printable(dir.path).c_str(), dir.source.c_str());
  }
  return kExitOk;
}

std::string abi_text(uint32_t version) {
  return std::to_string(SORTIE_ABI_MAJOR(version)) + "." +
         std::to_string(SORTIE_ABI_MINOR(version));
}

void print_plugin_json(const plugin_host::LoadedPlugin& plugin,
                       const registry::PluginLibrary& library,
                       const std::vector<std::string>& notes) {
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.plugin/1").key("plugin").string(library.name);
  out.key("negotiated_name").string(plugin.name).key("version").string(plugin.version);
  out.key("abi").string(abi_text(plugin.abi_version));
  out.key("manifest_abi").begin_object().key("min").string(abi_text(library.abi_min));
  out.key("max").string(abi_text(library.abi_max)).end_object();
  out.key("library").string(plugin.library_path).key("manifest").string(plugin.manifest_path);
  out.key("components").begin_array();
  for (const sortie_component* component : plugin.components) {
    out.begin_object().key("kind").string(plugin_host::component_kind_name(component->kind));
    out.key("name").string(component->name);
    out.key("description").string(component->description != nullptr ? component->description : "");
    out.end_object();
  }
  out.end_array().key("notes").begin_array();
  for (const auto& note : notes) out.string(note);
  out.end_array().end_object();
  std::printf("%s\n", out.str().c_str());
}

int show_plugin(session::Session& ctx, const Args& args) {
  po::options_description desc("plugins show options");
  desc.add_options()("help,h", "show this help")("json", "print JSON (docs/cli-json.md)");
  po::variables_map vm;
  const auto word = parse_positional_command(
      "usage: sortie plugins show NAME [--json]   (a plugin name or a component name)", desc,
      "NAME: a plugin or component name (see `sortie plugins list`)", args, vm);
  if (!word) return kExitOk;
  const std::string& name = *word;
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
    throw Error::not_found("no plugin or plugin component named '" + name +
                           "' (see `sortie plugins list`)");
  }
  const plugin_host::LoadedPlugin& plugin = ctx.plugin_host().load(*library);
  if (vm.count("json") != 0) {
    print_plugin_json(plugin, *library, ctx.plugin_host().diagnostics());
    return kExitOk;
  }
  std::printf(
      "plugin %s %s\n  ABI: %u.%u (manifest declares %u.%u-%u.%u)\n  library: %s\n"
      "  manifest: %s\n  components:\n",
      plugin.name.c_str(), plugin.version.c_str(), SORTIE_ABI_MAJOR(plugin.abi_version),
      SORTIE_ABI_MINOR(plugin.abi_version), SORTIE_ABI_MAJOR(library->abi_min),
      SORTIE_ABI_MINOR(library->abi_min), SORTIE_ABI_MAJOR(library->abi_max),
      SORTIE_ABI_MINOR(library->abi_max), plugin.library_path.c_str(),
      plugin.manifest_path.c_str());
  for (const sortie_component* component : plugin.components) {
    std::printf("    %-16s %-20s %s\n", plugin_host::component_kind_name(component->kind),
                component->name, component->description != nullptr ? component->description : "");
  }
  for (const auto& line : ctx.plugin_host().diagnostics())
    std::printf("  note: %s\n", line.c_str());
  return kExitOk;
}

// What `plugins doctor` found for one library, or for one component of it.
struct Finding {
  std::string what;   // "library" or "sortie.schedulers:local_cwd"
  std::string error;  // empty when OK
};

struct PluginReport {
  const registry::PluginLibrary* library;
  std::vector<Finding> findings;
  bool ok() const {
    for (const Finding& finding : findings) {
      if (!finding.error.empty()) return false;
    }
    return true;
  }
};

// Creates the entry's component with a minimal valid config and makes one cheap call.
void exercise(session::Session& ctx, const registry::Entry& entry) {
  switch (entry.group) {
    case registry::Group::kSchedulers:
      ctx.plugin_host()
          .scheduler(entry, ctx.scheduler_config(entry.name, ctx.options().session))
          ->run_options();
      return;
    case registry::Group::kImageProviders:
      ctx.plugin_host().image_provider(entry, ctx.image_provider_config(entry.name));
      return;
    case registry::Group::kNamedResources:
      ctx.plugin_host().resource_names(entry);
      return;
    case registry::Group::kPackagers:
      ctx.plugin_host().packager(entry, ctx.packager_config(entry.name));
      return;
    case registry::Group::kComponents:
    case registry::Group::kExecutors:
      return;
  }
}

// Every entry backed by a library, shadowed ones included: their libraries are installed too.
std::vector<const registry::Entry*> code_entries(const registry::Registry& reg) {
  std::vector<const registry::Entry*> entries;
  for (registry::Group group : kGroups) {
    for (const auto* entry : reg.entries(group)) {
      if (entry->plugin) entries.push_back(entry);
    }
  }
  for (const auto& shadow : reg.shadowed()) {
    if (shadow.hidden.plugin) entries.push_back(&shadow.hidden);
  }
  return entries;
}

PluginReport check_library(session::Session& ctx, const registry::PluginLibrary& library) {
  PluginReport report{&library, {}};
  try {
    const plugin_host::LoadedPlugin& loaded = ctx.plugin_host().load(library);
    report.findings.push_back({"library", ""});
    // `plugins list` shows the manifest's name and version, `plugins show` and error messages
    // the library's: they must agree.
    if (loaded.name != library.name) {
      report.findings.push_back(
          {"name", "the manifest " + library.manifest_path + " says name '" + library.name +
                       "', the library's SORTIE_PLUGIN('" + loaded.name + "', '" + loaded.version +
                       "'); make them the same (the sortie_add_plugin target)"});
    }
    if (loaded.version != library.version) {
      report.findings.push_back(
          {"version", "the manifest " + library.manifest_path + " says version '" +
                          library.version + "', the library's SORTIE_PLUGIN('" + loaded.name +
                          "', '" + loaded.version +
                          "'); make them the same (sortie_add_plugin VERSION)"});
    }
  } catch (const Error& e) {
    report.findings.push_back({"library", e.what()});
    return report;
  }
  for (const registry::Entry* entry : code_entries(ctx.registry())) {
    if (entry->plugin.get() != &library) continue;
    Finding finding{std::string(registry::to_string(entry->group)) + ":" + entry->name, ""};
    try {
      exercise(ctx, *entry);
    } catch (const Error& e) {
      finding.error = e.what();
    }
    report.findings.push_back(std::move(finding));
  }
  return report;
}

// A plugin that crashed sortie in process is trusted again once its checks pass and they made
// the call it crashed in (ISO-9). Checks that never made that call (schedule submits an app, so
// doctor does not) prove nothing about it: the record stays, reported as a failed check.
void settle_recorded_crash(PluginReport& report) {
  const std::string& name = report.library->name;
  const std::optional<std::string> call = plugin_host::recorded_plugin_crash_call(name);
  if (!call || !report.ok()) return;
  static const std::set<std::string> kCallsDoctorMakes = {"create", "run_options", "names"};
  if (kCallsDoctorMakes.count(*call) != 0) {
    plugin_host::forget_plugin_crash(name);
    return;
  }
  report.findings.push_back(
      {"recorded crash",
       "it crashed sortie in process (" + plugin_host::recorded_plugin_crash(name).value_or("") +
           "), in " + (call->empty() ? "a call" : *call) +
           ", which doctor does not make; install a fixed plugin, then delete the record to load "
           "it in process again (--isolate-plugins runs it in a helper process meanwhile)"});
}

int doctor(session::Session& ctx, const Args& args) {
  std::vector<std::string> names;
  po::options_description desc("plugins doctor options");
  desc.add_options()("help,h", "show this help")("json", "print JSON");
  po::options_description hidden;
  hidden.add_options()("name", po::value(&names));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description positional;
  positional.add("name", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << "usage: sortie plugins doctor [NAME...] [options]\n\n"
                 "Loads every plugin (or those named, by plugin or component name) in a helper\n"
                 "process, creates each component and makes one call, and reports OK or the\n"
                 "error. Calls time out after 10 s unless --plugin-timeout says otherwise.\n"
                 "Exit status 0 when all are OK, 1 otherwise.\n\n"
              << desc;
    return kExitOk;
  }
  plugin_host::IsolationOptions isolation = ctx.plugin_host().isolation();
  isolation.isolate_all = true;
  if (!ctx.plugin_timeout_chosen()) isolation.call_timeout = std::chrono::seconds(10);
  ctx.plugin_host().set_isolation(isolation);

  const registry::Registry& reg = ctx.registry();
  std::vector<const registry::PluginLibrary*> libraries;
  std::set<std::string> matched;
  for (const registry::Entry* entry : code_entries(reg)) {
    bool wanted = names.empty();
    for (const std::string& name : names) {
      if (entry->name == name || entry->plugin->name == name) {
        wanted = true;
        matched.insert(name);
      }
    }
    if (wanted &&
        std::find(libraries.begin(), libraries.end(), entry->plugin.get()) == libraries.end()) {
      libraries.push_back(entry->plugin.get());
    }
  }
  for (const std::string& name : names) {
    if (!matched.count(name)) {
      throw Error::not_found("no plugin or plugin component named '" + name +
                             "' (see `sortie plugins list`)");
    }
  }
  std::vector<PluginReport> reports;
  for (const auto* library : libraries) {
    reports.push_back(check_library(ctx, *library));
    settle_recorded_crash(reports.back());
  }
  // Broken manifests are findings too, unless only some plugins were asked about.
  const std::vector<registry::Problem> problems =
      names.empty() ? reg.problems() : std::vector<registry::Problem>{};
  bool all_ok = problems.empty();
  for (const PluginReport& report : reports) all_ok = all_ok && report.ok();

  if (vm.count("json") != 0) {
    session::JsonText out;
    out.begin_object().key("schema").string("sortie.cli.plugin_doctor/1").key("ok").boolean(all_ok);
    out.key("plugins").begin_array();
    for (const PluginReport& report : reports) {
      out.begin_object()
          .key("plugin")
          .string(report.library->name)
          .key("library")
          .string(report.library->library_path)
          .key("manifest")
          .string(report.library->manifest_path)
          .key("ok")
          .boolean(report.ok())
          .key("checks")
          .begin_array();
      for (const Finding& finding : report.findings) {
        out.begin_object()
            .key("check")
            .string(finding.what)
            .key("ok")
            .boolean(finding.error.empty());
        out.key("error").string_or_null(finding.error);
        out.end_object();
      }
      out.end_array().end_object();
    }
    out.end_array().key("problems").begin_array();
    for (const auto& problem : problems) {
      out.begin_object()
          .key("manifest")
          .string(problem.manifest_path)
          .key("message")
          .string(problem.message)
          .end_object();
    }
    out.end_array().end_object();
    std::printf("%s\n", out.str().c_str());
    return all_ok ? kExitOk : kExitBackend;  // a plugin failed (docs/exit-status.md)
  }
  for (const PluginReport& report : reports) {
    std::printf("%s %s (%s)\n", report.ok() ? "ok    " : "FAILED", report.library->name.c_str(),
                report.library->library_path.c_str());
    for (const Finding& finding : report.findings) {
      if (finding.error.empty()) {
        std::printf("  ok      %s\n", finding.what.c_str());
      } else {
        std::printf("  FAILED  %s: %s\n", finding.what.c_str(), finding.error.c_str());
      }
    }
  }
  for (const auto& problem : problems) {
    std::printf("FAILED manifest %s: %s\n", problem.manifest_path.c_str(), problem.message.c_str());
  }
  for (const auto& line : ctx.plugin_host().diagnostics()) {
    std::printf("note: %s\n", line.c_str());
  }
  std::printf("%zu plugin(s) checked: %s\n", reports.size(),
              all_ok ? "all OK" : "some FAILED (see above)");
  return all_ok ? kExitOk : kExitBackend;  // a plugin failed (docs/exit-status.md)
}

}  // namespace

int cmd_plugins(session::Session& ctx, const Args& args) {
  const std::string sub = args.empty() ? "list" : args[0];
  const Args rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (sub == "list") return list_plugins(ctx, rest);
  if (sub == "show") return show_plugin(ctx, rest);
  if (sub == "doctor") return doctor(ctx, rest);
  if (sub == "--help" || sub == "-h") {
    std::printf(
        "usage: sortie plugins list [--group G] [--json]\n"
        "       sortie plugins show NAME [--json]\n"
        "       sortie plugins doctor [NAME...] [--json]\n");
    return kExitOk;
  }
  throw Error::invalid_argument("unknown plugins subcommand '" + sub +
                                "' (expected list, show or doctor)");
}

}  // namespace sortie::cli
