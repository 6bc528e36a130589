// `sortie cancel HANDLE`: asks the scheduler to cancel, then waits (bounded) for the app to be
// terminal so the user learns the outcome. A thin client of the runner API.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sortie/core/model.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/app_waiter.hpp>

#include "app_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

int cmd_cancel(session::Session& ctx, const Args& args) {
  double timeout_s = 60;
  po::options_description desc("cancel options");
  desc.add_options()("help,h", "show this help")(
      "timeout", po::value(&timeout_s),
      "seconds to wait for the app to stop (default 60; 0 = return at once)");
  po::variables_map vm;
  const auto handle_text =
      parse_positional_command("usage: sortie cancel HANDLE [options]", desc,
                               "HANDLE (SCHEDULER://SESSION/APP_ID)", args, vm);
  if (!handle_text) return kExitOk;

  const std::string handle = core::parse_app_handle(*handle_text).str();
  runner::Runner runner = runner::SessionBinding::over(ctx);
  const auto status = runner.status(handle);
  if (!status) return report_unknown_app(handle);
  if (runner::is_terminal(status->state)) {
    std::printf("%s is already %s\n", handle.c_str(), runner::to_string(status->state).c_str());
    return kExitOk;
  }
  runner.cancel(handle, "sortie cancel");
  if (timeout_s <= 0) {
    std::printf("cancel requested for %s\n", handle.c_str());
    return kExitOk;
  }
  session::install_interrupt_handlers();
  const runner::AppStatus last =
      runner.wait(handle, std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  if (!runner::is_terminal(last.state)) {
    std::printf("cancel requested for %s; still %s\n", handle.c_str(),
                runner::to_string(last.state).c_str());
    return kExitBackend;
  }
  std::printf("%s %s\n", handle.c_str(), runner::to_string(last.state).c_str());
  return kExitOk;
}

}  // namespace sortie::cli
