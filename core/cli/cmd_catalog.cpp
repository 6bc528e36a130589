// The catalogue commands: `sortie runopts [SCHEDULER]`, `sortie resources [NAME]` and
// `sortie builtins [--print NAME]`, each with --json (docs/cli-json.md).
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <sortie/model/component.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/printable.hpp>
#include <sortie/model/runopts.hpp>
#include <sortie/session/json_text.hpp>
#include <string>

#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

struct CatalogCommandLine {
  std::string name;  // the optional positional word
  bool json = false;
  bool help = false;
};

// Parses `[NAME] [--json]` plus the options `extra` declares (their values land where they say).
CatalogCommandLine parse_catalog_args(const char* usage, const Args& args,
                                      const po::options_description& extra) {
  CatalogCommandLine line;
  po::options_description desc("options");
  desc.add_options()("help,h", "show this help")("json", "print JSON (docs/cli-json.md)");
  desc.add(extra);
  po::options_description hidden;
  hidden.add_options()("name", po::value(&line.name));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description positional;
  positional.add("name", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  line.help = vm.count("help") != 0;
  if (line.help) std::cout << usage << "\n\n" << desc;
  line.json = vm.count("json") != 0;
  return line;
}

void print_document(const session::JsonText& out) { std::printf("%s\n", out.str().c_str()); }

void write_runopts(session::JsonText& out, const std::vector<model::RunOpt>& opts) {
  out.key("options").begin_array();
  for (const auto& opt : opts) {
    out.begin_object().key("name").string(opt.name).key("type").string(model::to_string(opt.type));
    out.key("required").boolean(opt.required).key("effect").string(model::to_string(opt.effect));
    out.key("default").raw_or_null(opt.default_json.value_or(""));
    out.key("help").string(opt.help).end_object();
  }
  out.end_array();
}

// One element of sortie.cli.resources/1; `resource` is P-3 JSON, or empty when not resolved.
void write_resource(session::JsonText& out, const registry::Entry& entry,
                    const std::string& resource) {
  out.begin_object().key("name").string(entry.name).key("manifest").string(entry.manifest_path);
  out.key("plugin").string_or_null(entry.plugin ? entry.plugin->name : "");
  out.key("resource").raw_or_null(resource).end_object();
}

std::string describe_resource(const Resource& res) {
  std::string text = "cpu " + (res.cpu >= 0 ? std::to_string(res.cpu) : std::string("-"));
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  text += ", gpu " + (res.gpu >= 0 ? std::to_string(res.gpu) : std::string("-"));
  text += ", memMB " + (res.mem_mb >= 0 ? std::to_string(res.mem_mb) : std::string("-"));
  // By name, whatever order the entry's file gives them.
  for (const auto& [key, value] :
       std::map<std::string, std::string>(res.capabilities.begin(), res.capabilities.end())) {
    text += ", " + key + "=" + value;
  }
  for (const auto& [key, count] :
       std::map<std::string, int64_t>(res.devices.begin(), res.devices.end())) {
    text += ", device " + key + " x" + std::to_string(count);
  }
  return text;
}

}  // namespace

int cmd_runopts(session::Session& ctx, const Args& args) {
  const CatalogCommandLine line =
      parse_catalog_args("usage: sortie runopts [SCHEDULER] [--json]", args, {});
  if (line.help) return kExitOk;
  std::vector<std::string> names;
  if (!line.name.empty()) {
    names.push_back(line.name);
  } else {
    for (const auto* entry : ctx.registry().entries(registry::Group::kSchedulers)) {
      names.push_back(entry->name);
    }
  }
  int status = kExitOk;
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.runopts/1").key("schedulers").begin_array();
  for (const auto& name : names) {
    try {
      auto scheduler = ctx.scheduler(name, ctx.options().session);
      const auto opts = scheduler->declared_run_options();
      if (line.json) {
        out.begin_object().key("scheduler").string(name);
        write_runopts(out, opts);
        out.end_object();
        continue;
      }
      std::printf("%s:\n", name.c_str());
      for (const auto& opt : opts) {
        std::string detail = model::to_string(opt.type);
        if (opt.required) detail += ", required";
        if (opt.default_json) detail += ", default " + *opt.default_json;
        if (opt.effect != model::OptEffect::kNone) {
          detail += std::string(", ") + model::to_string(opt.effect);
        }
        std::printf("    %s (%s)\n        %s\n", opt.name.c_str(), detail.c_str(),
                    opt.help.c_str());
      }
    } catch (const Error& e) {
      if (!line.name.empty()) throw;
      std::fprintf(stderr, "sortie runopts: %s: %s\n", model::printable(name).c_str(),
                   model::printable_message(e.what()).c_str());
      status = kExitBackend;  // report every scheduler, then fail
    }
  }
  if (line.json) print_document(out.end_array().end_object());
  return status;
}

int cmd_resources(session::Session& ctx, const Args& args) {
  const CatalogCommandLine line =
      parse_catalog_args("usage: sortie resources [NAME] [--json]", args, {});
  if (line.help) return kExitOk;
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.resources/1").key("resources").begin_array();
  if (!line.name.empty()) {
    auto resource = ctx.named_resource(line.name);
    if (!resource) {
      std::string message = "unknown named resource '" + line.name + "'";
      auto close = ctx.registry().close_names(registry::Group::kNamedResources, line.name);
      if (!close.empty()) message += " (did you mean '" + close.front() + "'?)";
      throw Error::not_found(message);
    }
    if (!line.json) {
      std::printf("%s\n", ::sortie::write_resource(*resource).c_str());
      return kExitOk;
    }
    write_resource(out, *ctx.registry().find(registry::Group::kNamedResources, line.name),
                   ::sortie::write_resource(*resource));
    print_document(out.end_array().end_object());
    return kExitOk;
  }
  for (const auto* entry : ctx.registry().entries(registry::Group::kNamedResources)) {
    if (line.json) {
      // Listing loads no library: code-backed resources are resolved only when named.
      write_resource(out, *entry,
                     entry->plugin ? ""
                                   : ::sortie::write_resource(model::resource_from_json(
                                         entry->data_json, entry->manifest_path)));
      continue;
    }
    std::string detail;
    if (!entry->plugin) {
      detail = describe_resource(model::resource_from_json(entry->data_json, entry->manifest_path));
    } else {
      detail = "(provided by plugin " + entry->plugin->name + ")";
    }
    std::printf("%-28s %s\n", entry->name.c_str(), detail.c_str());
  }
  if (line.json) print_document(out.end_array().end_object());
  // The registry skipped an entry it could not read (REG-12); the rest still list.
  for (const auto& problem : ctx.registry().problems()) {
    if (problem.message.rfind("provides[", 0) != 0) continue;  // an entry, not a whole file
    std::fprintf(stderr, "sortie resources: warning: skipped %s: %s\n",
                 model::printable(problem.manifest_path).c_str(),
                 model::printable_message(problem.message).c_str());
  }
  return kExitOk;
}

int cmd_builtins(session::Session& ctx, const Args& args) {
  std::string print_name;
  po::options_description extra;
  extra.add_options()("print", po::value(&print_name), "show one component's parameters");
  const CatalogCommandLine line =
      parse_catalog_args("usage: sortie builtins [--print COMPONENT] [--json]", args, extra);
  if (line.help) return kExitOk;
  if (!line.name.empty()) {
    throw Error::invalid_argument("unexpected '" + line.name + "' (did you mean --print " +
                                  line.name + "?)");
  }
  if (!print_name.empty()) {
    if (line.json)
      throw Error::invalid_argument("--print and --json: give one (--json lists every component)");
    const registry::Entry* entry = ctx.registry().find(registry::Group::kComponents, print_name);
    if (entry == nullptr) {
      throw Error::not_found("unknown component '" + print_name + "'");
    }
    const auto component = model::parse_component(entry->name, entry->description, entry->data_json,
                                                  entry->manifest_path);
    std::fputs(model::component_help(component).c_str(), stdout);
    std::printf("\ndefined in %s\n", entry->manifest_path.c_str());
    return kExitOk;
  }
  const auto entries = ctx.registry().entries(registry::Group::kComponents);
  if (line.json) {
    session::JsonText out;
    out.begin_object().key("schema").string("sortie.cli.builtins/1").key("components");
    out.begin_array();
    for (const auto* entry : entries) {
      const auto component = model::parse_component(entry->name, entry->description,
                                                    entry->data_json, entry->manifest_path);
      out.begin_object().key("name").string(component.name);
      out.key("description").string(component.description);
      out.key("manifest").string(entry->manifest_path).key("params").begin_array();
      for (const model::ComponentParam& param : component.params) {
        out.begin_object().key("name").string(param.name).key("type").string(param.type);
        out.key("default").raw_or_null(param.default_json.value_or(""));
        out.key("positional").boolean(param.positional).key("help").string(param.help);
        out.end_object();
      }
      out.end_array().end_object();
    }
    print_document(out.end_array().end_object());
    return kExitOk;
  }
  std::printf("Found %zu components:\n", entries.size());
  for (const auto* entry : entries) {
    std::printf("  %-20s %s\n", entry->name.c_str(), entry->description.c_str());
  }
  return kExitOk;
}

}  // namespace sortie::cli
