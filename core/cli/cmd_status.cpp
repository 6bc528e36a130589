// `sortie status HANDLE` and `sortie describe HANDLE`: thin clients of the runner API.
#include <boost/algorithm/string/split.hpp>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/secret_env.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/json_text.hpp>

#include "app_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "printable.hpp"
#include "status_format.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

struct HandleCommandLine {
  std::string handle;
  bool json = false;
  std::set<std::string> roles;
  bool help = false;
  bool show_secrets = false;
};

// `with_roles`: status's --roles; `with_definition`: describe's --show-secrets.
HandleCommandLine parse_handle_args(const char* command, const Args& args, bool with_roles,
                                    bool with_definition) {
  HandleCommandLine line;
  std::string roles;
  po::options_description desc(std::string(command) + " options");
  desc.add_options()("help,h", "show this help")("json", "print JSON (docs/payloads.md P-8)");
  if (with_roles) desc.add_options()("roles", po::value(&roles), "only these roles (r1,r2)");
  if (with_definition) {
    desc.add_options()("show-secrets",
                       "print the values of env vars named like *TOKEN*, *SECRET*, *PASSWORD* "
                       "(masked otherwise)");
  }
  po::variables_map vm;
  const std::string usage = std::string("usage: sortie ") + command + " HANDLE [options]";
  auto handle = parse_positional_command(
      usage.c_str(), desc, "HANDLE (SCHEDULER://SESSION/APP_ID); `sortie list` shows them", args,
      vm);
  line.help = !handle;
  if (line.help) return line;
  line.handle = *handle;
  line.json = vm.count("json") != 0;
  line.show_secrets = vm.count("show-secrets") != 0;
  if (!roles.empty()) {
    std::vector<std::string> names;
    boost::split(names, roles, [](char c) { return c == ','; });
    line.roles.insert(names.begin(), names.end());
  }
  return line;
}

}  // namespace

int cmd_status(session::Session& ctx, const Args& args) {
  const HandleCommandLine line = parse_handle_args("status", args, true, false);
  if (line.help) return kExitOk;
  const std::string handle = model::parse_app_handle(line.handle).str();
  const auto status = runner::SessionBinding::over(ctx).status(handle);
  if (!status) return report_unknown_app(line.handle);
  const int exit_status = report_shown_status(handle, status);
  if (line.json) {
    std::printf("%s\n", write_status(*status).c_str());
  } else {
    std::fputs(format_status(handle, *status, line.roles).c_str(), stdout);
  }
  return exit_status;
}

int cmd_describe(session::Session& ctx, const Args& args) {
  const HandleCommandLine line = parse_handle_args("describe", args, false, true);
  if (line.help) return kExitOk;
  const std::string handle = model::parse_app_handle(line.handle).str();
  const auto description = runner::SessionBinding::over(ctx).describe(handle);
  if (!description) return report_unknown_app(line.handle);
  const int exit_status = report_shown_status(handle, description->status);
  // Without a store record (an app submitted elsewhere) the definition is unknown.
  const bool recorded = !description->app_json.empty();
  const std::vector<std::string> secrets =
      recorded && !line.show_secrets
          ? model::secret_env_values(model::appdef_from_json(description->app_json, "the store"))
          : std::vector<std::string>{};
  if (line.json) {
    session::JsonText out;
    out.begin_object().key("schema").string("sortie.cli.describe/1");
    out.key("handle").string(handle);
    if (recorded) {
      out.key("app").raw(description->app_json);
      out.key("cfg").raw(description->cfg_json);
      out.key("submitted_at").number(description->submitted_at);
    } else {
      out.key("app").null().key("cfg").null().key("submitted_at").null();
    }
    out.key("status").raw_or_null(description->status ? write_status(*description->status) : "");
    out.end_object();
    std::printf("%s\n", model::mask_secrets(out.str(), secrets).c_str());
    return exit_status;
  }
  if (recorded) {
    // format_app escapes control characters, so the secrets are looked for as they are shown.
    std::vector<std::string> shown_secrets;
    for (const std::string& secret : secrets) shown_secrets.push_back(printable(secret));
    std::fputs(
        model::mask_secrets(format_app(model::appdef_from_json(description->app_json, "the store")),
                            shown_secrets)
            .c_str(),
        stdout);
  } else {
    std::printf("App: (submitted outside this machine's store; definition unknown)\n");
  }
  if (description->status) {
    std::fputs(format_status(handle, *description->status, {}).c_str(), stdout);
  }
  return exit_status;
}

}  // namespace sortie::cli
