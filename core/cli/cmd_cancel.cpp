// `sortie cancel HANDLE...`: asks the schedulers to cancel the apps (one request per scheduler
// for them all where it can, e.g. one scancel for a Slurm sweep) and returns once they accepted;
// with --wait, follows the apps until they are terminal, for at most --timeout seconds. A thin
// client of the runner API.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <sortie/model/error.hpp>
#include <sortie/model/model.hpp>
#include <sortie/model/printable.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/app_waiter.hpp>
#include <string>
#include <vector>

#include "app_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {
namespace {

constexpr double kDefaultWaitS = 60;

// Follows each app until it is terminal, all within `timeout_s`; prints each outcome. kExitOk
// when all ended, kExitBackend when the time ran out first, kExitInterrupted on SIGINT/SIGTERM.
int wait_for_ends(runner::Runner& runner, const std::vector<std::string>& handles,
                  double timeout_s) {
  session::install_interrupt_handlers();
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  int exit_status = kExitOk;
  for (const std::string& handle : handles) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const runner::AppStatus last =
        runner.wait(handle, std::max(left, std::chrono::milliseconds(0)));
    if (runner::is_terminal(last.state)) {
      std::printf("%s %s\n", handle.c_str(), runner::to_string(last.state).c_str());
      continue;
    }
    std::printf("cancel requested for %s; still %s after --timeout %g s\n", handle.c_str(),
                runner::to_string(last.state).c_str(), timeout_s);
    exit_status = session::interrupted() != 0 ? kExitInterrupted : kExitBackend;
  }
  return exit_status;
}

}  // namespace

int cmd_cancel(session::Session& ctx, const Args& args) {
  double timeout_s = kDefaultWaitS;
  po::options_description desc("cancel options");
  desc.add_options()("help,h", "show this help")(
      "wait",
      "wait until every app is terminal (by default sortie returns once the scheduler "
      "accepted the cancellation)")(
      "timeout", po::value(&timeout_s),
      "with --wait: seconds to wait at most, for all the apps together (default 60); running "
      "out exits 3");
  po::variables_map vm;
  const auto handle_texts =
      parse_positional_words("usage: sortie cancel HANDLE... [--wait [--timeout SECONDS]]", desc,
                             "HANDLE (SCHEDULER://SESSION/APP_ID)", args, vm, -1);
  if (!handle_texts) return kExitOk;
  const bool wait = vm.count("wait") != 0;
  if (vm.count("timeout") != 0 && !wait) {
    throw Error::invalid_argument(
        "--timeout bounds the wait of --wait; add --wait, or drop --timeout (sortie cancel "
        "returns once the scheduler accepted the cancellation)");
  }
  if (timeout_s < 0) throw Error::invalid_argument("--timeout must be 0 or more seconds");

  runner::Runner runner = runner::SessionBinding::over(ctx);
  int exit_status = kExitOk;
  std::vector<std::string> to_cancel;
  for (const std::string& text : *handle_texts) {
    const std::string handle = model::parse_app_handle(text).str();
    const auto status = runner.status(handle);
    if (!status) {
      exit_status = std::max(exit_status, report_unknown_app(handle));
    } else if (runner::is_terminal(status->state)) {
      std::printf("%s is already %s\n", handle.c_str(), runner::to_string(status->state).c_str());
    } else {
      to_cancel.push_back(handle);
    }
  }
  const std::vector<runner::CancelFailure> failures = runner.cancel_all(to_cancel, "sortie cancel");
  std::vector<std::string> requested;
  for (const std::string& handle : to_cancel) {
    bool failed = false;
    for (const runner::CancelFailure& failure : failures) {
      if (failure.handle != handle) continue;
      std::fprintf(stderr, "sortie cancel: error: %s: %s\n", model::printable(handle).c_str(),
                   model::printable_message(failure.error.what()).c_str());
      exit_status = std::max(exit_status, exit_status_of(failure.error.status()));
      failed = true;
    }
    if (failed) continue;
    requested.push_back(handle);
    if (!wait) std::printf("cancel requested for %s\n", handle.c_str());
  }
  if (wait) exit_status = std::max(exit_status, wait_for_ends(runner, requested, timeout_s));
  return exit_status;
}

}  // namespace sortie::cli
