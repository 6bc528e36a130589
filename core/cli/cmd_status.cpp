// `sortie status HANDLE` and `sortie describe HANDLE`.
#include <boost/algorithm/string/split.hpp>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/json_text.hpp>

#include "app_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "status_format.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

struct HandleCommandLine {
  std::string handle;
  bool json = false;
  std::set<std::string> roles;
  bool help = false;
};

HandleCommandLine parse_handle_args(const char* command, const Args& args, bool with_roles) {
  HandleCommandLine line;
  std::string roles;
  po::options_description desc(std::string(command) + " options");
  desc.add_options()("help,h", "show this help")("json", "print JSON (docs/payloads.md P-8)");
  if (with_roles) desc.add_options()("roles", po::value(&roles), "only these roles (r1,r2)");
  po::variables_map vm;
  const std::string usage = std::string("usage: sortie ") + command + " HANDLE [options]";
  auto handle = parse_positional_command(
      usage.c_str(), desc, "HANDLE (SCHEDULER://SESSION/APP_ID); `sortie list` shows them", args,
      vm);
  line.help = !handle;
  if (line.help) return line;
  line.handle = *handle;
  line.json = vm.count("json") != 0;
  if (!roles.empty()) {
    std::vector<std::string> names;
    boost::split(names, roles, [](char c) { return c == ','; });
    line.roles.insert(names.begin(), names.end());
  }
  return line;
}

}  // namespace

int cmd_status(session::Session& ctx, const Args& args) {
  const HandleCommandLine line = parse_handle_args("status", args, true);
  if (line.help) return kExitOk;
  const session::AppLookup app = session::lookup_app(ctx, line.handle);
  if (!app.status) return report_unknown_app(line.handle);
  const int exit_status = report_shown_status(app);
  if (line.json) {
    std::printf("%s\n", core::to_json(*app.status).c_str());
  } else {
    std::fputs(format_status(app.handle.str(), *app.status, line.roles).c_str(), stdout);
  }
  return exit_status;
}

int cmd_describe(session::Session& ctx, const Args& args) {
  const HandleCommandLine line = parse_handle_args("describe", args, false);
  if (line.help) return kExitOk;
  const session::AppLookup app = session::lookup_app(ctx, line.handle);
  const auto record = ctx.store().get(app.handle.str());
  if (!app.status && !record) return report_unknown_app(line.handle);
  const int exit_status = report_shown_status(app);
  if (line.json) {
    session::JsonText out;
    out.begin_object().key("schema").string("sortie.cli.describe/1");
    out.key("handle").string(app.handle.str());
    // Without a store record (an app submitted elsewhere) the definition is unknown: null.
    if (record) {
      out.key("app").raw(record->appdef_json);
      out.key("cfg").raw(record->cfg_json.empty() ? "{}" : record->cfg_json);
      out.key("submitted_at").number(record->submitted_at);
    } else {
      out.key("app").null().key("cfg").null().key("submitted_at").null();
    }
    out.key("status").raw_or_null(app.status ? core::to_json(*app.status) : "");
    out.end_object();
    std::printf("%s\n", out.str().c_str());
    return exit_status;
  }
  if (record) {
    std::fputs(format_app(core::appdef_from_json(record->appdef_json, "the store")).c_str(),
               stdout);
  } else {
    std::printf("App: (submitted outside this machine's store; definition unknown)\n");
  }
  if (app.status) std::fputs(format_status(app.handle.str(), *app.status, {}).c_str(), stdout);
  return exit_status;
}

}  // namespace sortie::cli
