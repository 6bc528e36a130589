// `sortie ui [--port N] [--host ADDRESS] [--allow-writes]`: the live web dashboard (docs/ui.md),
// served until SIGINT or SIGTERM.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sortie/model/error.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/ui/dashboard.hpp>

#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

int cmd_ui(session::Session& ctx, const Args& args) {
  ui::DashboardOptions options;
  bool allow_cancel = false;
  po::options_description desc("ui options");
  desc.add_options()("help,h", "show this help")(
      "port", po::value(&options.port)->default_value(options.port),
      "TCP port to listen on (0: any free port)")(
      "host", po::value(&options.host)->default_value(options.host),
      "address to listen on; anything but loopback shows your apps to the network")(
      "allow-writes", po::bool_switch(&options.allow_writes),
      "accept cancels and edits of experiments' notes and tags, and show their controls "
      "(read-only otherwise: writes answer 403)")("allow-cancel", po::bool_switch(&allow_cancel),
                                                  "the former name of --allow-writes");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::printf("usage: sortie ui [--port N] [--host ADDRESS] [--allow-writes]\n\n%s\n",
                "A live web dashboard of the experiments and apps in sortie's store.");
    std::cout << desc << "\n";
    return kExitOk;
  }
  if (options.port < 0 || options.port > 65535) {
    throw Error::invalid_argument("--port " + std::to_string(options.port) +
                                  " is not a TCP port (0 to 65535)");
  }
  if (options.host.empty()) throw Error::invalid_argument("--host: give an address");
  options.allow_writes = options.allow_writes || allow_cancel;
  session::install_interrupt_handlers();
  ui::serve_dashboard(
      ctx.options(), options,
      [&](const std::string& url) {
        std::printf("sortie ui: serving %s (%s; Ctrl-C stops)\n", url.c_str(),
                    options.allow_writes ? "writes allowed" : "read-only");
        std::fflush(stdout);
      },
      [] { return session::interrupted() != 0; });
  return kExitOk;
}

}  // namespace sortie::cli
