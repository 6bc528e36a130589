#include "experiment_wait.hpp"

#include <chrono>
#include <cstdio>
#include <sortie/model/error.hpp>
#include <sortie/session/app_waiter.hpp>

#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

ExperimentWait::ExperimentWait() : timeout_s(kDefaultWaitForAppsS) {}

void ExperimentWait::add_options(po::options_description& desc) {
  desc.add_options()("wait", po::bool_switch(&wait),
                     "wait until every work unit is done; exit 0 only if all succeeded")(
      "timeout", po::value(&timeout_s),
      "with --wait: seconds to wait at most (default 86400, a day); running out leaves the work "
      "units running and exits 3");
}

void ExperimentWait::check(const po::variables_map& vm) const {
  if (vm.count("timeout") != 0 && !wait) {
    throw Error::invalid_argument(
        "--timeout bounds the wait of --wait; add --wait, or drop --timeout");
  }
  if (timeout_s < 0) throw Error::invalid_argument("--timeout must be 0 or more seconds");
  if (wait) session::install_interrupt_handlers();
}

int wait_for_experiment(xm::Experiment& experiment, double timeout_s, const char* command) {
  const xm::State state = experiment.wait_until_complete(
      std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  if (const int signal = session::interrupted(); signal != 0) {
    std::fprintf(stderr, "%s: interrupted by signal %d: cancelling experiment %lld\n", command,
                 signal, static_cast<long long>(experiment.id()));
    experiment.cancel();
    return kExitInterrupted;
  }
  if (state == xm::State::kPending || state == xm::State::kRunning) {
    std::fprintf(stderr,
                 "%s: experiment %lld is still %s after --timeout %g s; its work units "
                 "keep running (`sortie experiments cancel %lld` stops them)\n",
                 command, static_cast<long long>(experiment.id()), xm::to_string(state), timeout_s,
                 static_cast<long long>(experiment.id()));
    return kExitBackend;
  }
  std::printf("experiment %lld %s\n", static_cast<long long>(experiment.id()),
              xm::to_string(state));
  return state == xm::State::kSucceeded ? kExitOk : kExitAppNotSucceeded;
}

}  // namespace sortie::cli
