// `sortie launch FILE`: runs an experiment file (docs/experiments.md) through the launch API of
// sortie/xm.hpp: packages its executables in one batch, then adds its work units in order.
#include <boost/program_options.hpp>
#include <cstdio>
#include <map>
#include <sortie/core/error.hpp>
#include <sortie/core/experiment_file.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/xm.hpp>

#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

int cmd_launch(session::Session& ctx, const Args& args) {
  bool wait = false;
  po::options_description desc("launch options");
  desc.add_options()("help,h", "show this help")(
      "wait", po::bool_switch(&wait),
      "wait until every work unit is done; exit 0 only if all succeeded");
  po::variables_map vm;
  const auto path = parse_positional_command("usage: sortie launch FILE [options]", desc,
                                             "FILE (an experiment file, YAML or JSON)", args, vm);
  if (!path) return kExitOk;
  // Like `run --wait`: SIGINT/SIGTERM while waiting cancels what was launched.
  if (wait) session::install_interrupt_handlers();

  const core::ExperimentFile file = core::read_experiment_file(*path);
  xm::Options options;
  options.session = ctx.options().session;
  options.launch_dir = file.launch_dir;
  options.plugin_dirs = ctx.options().plugin_dirs;
  options.quiet = ctx.options().quiet;
  xm::Experiment experiment = xm::Experiment::create(file.title, options);
  std::vector<xm::Packageable> packageables;
  for (const auto& [name, packageable] : file.executables) packageables.push_back(packageable);
  const std::vector<xm::Executable> executables = experiment.package(packageables);
  // Asking for the id records the experiment: one that failed to package leaves no record.
  std::printf("experiment %lld '%s'\n", static_cast<long long>(experiment.id()),
              file.title.c_str());
  std::fflush(stdout);
  std::map<std::string, xm::Executable> packaged;
  for (size_t i = 0; i < executables.size(); ++i) {
    packaged[file.executables[i].first] = executables[i];
  }

  for (size_t i = 0; i < file.work_units.size(); ++i) {
    const xm::GroupArgs& overrides = file.work_units[i];
    xm::WorkUnit unit;
    try {
      if (file.job) {
        xm::JobArgs job_args;
        if (const auto it = overrides.find(file.job->name); it != overrides.end()) {
          job_args = it->second;
        }
        unit = experiment.add(core::resolve_job(*file.job, packaged), job_args);
      } else {
        unit = experiment.add(core::resolve_group(*file.group, packaged), overrides);
      }
    } catch (const std::exception& error) {
      std::fprintf(stderr,
                   "sortie: experiment %lld: work unit %zu of %zu was not launched: %s\n"
                   "sortie: the %zu launched before it keep running (`sortie experiments cancel "
                   "%lld` stops them)\n",
                   static_cast<long long>(experiment.id()), i + 1, file.work_units.size(),
                   error.what(), i, static_cast<long long>(experiment.id()));
      return kExitBackend;
    }
    for (const xm::JobHandle& job : unit.jobs) {
      std::printf("  work unit %d: %s %s\n", unit.id, job.name.c_str(), job.app.c_str());
    }
    std::fflush(stdout);
  }
  if (!wait) return kExitOk;
  const xm::State state = experiment.wait_until_complete();
  if (const int signal = session::interrupted(); signal != 0) {
    std::fprintf(stderr, "sortie launch: interrupted by signal %d: cancelling experiment %lld\n",
                 signal, static_cast<long long>(experiment.id()));
    experiment.cancel();
    return kExitInterrupted;
  }
  std::printf("experiment %lld %s\n", static_cast<long long>(experiment.id()),
              xm::to_string(state));
  return state == xm::State::kSucceeded ? kExitOk : kExitAppNotSucceeded;
}

}  // namespace sortie::cli
