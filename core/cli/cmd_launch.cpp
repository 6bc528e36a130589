// `sortie launch FILE`: runs an experiment file (docs/experiments.md) through the launch API of
// sortie/xm.hpp (xm::launch_experiment_file) and prints what it launched. A thin client.
#include <boost/program_options.hpp>
#include <cstdio>
#include <functional>
#include <memory>
#include <sortie/session/measurement_collector.hpp>
#include <sortie/xm/experiment_file_launch.hpp>
#include <sortie/xm/session_binding.hpp>

#include "command_line.hpp"
#include "commands.hpp"
#include "experiment_wait.hpp"
#include "launch_script.hpp"
#include "metrics_option.hpp"
#include "printable.hpp"

namespace po = boost::program_options;

namespace sortie::cli {
namespace {

// Sets SORTIE_METRICS_PATTERN in the environment of every executable, where it is no
// hyperparameter, and over a job's own where it sets one.
void ask_for_measurements(xm::ExperimentFile& file, const std::string& pattern) {
  for (auto& [name, executable] : file.executables) {
    executable.env_vars[session::kMetricsPatternVariable] = pattern;
  }
  const std::function<void(const std::shared_ptr<xm::FileJob>&,
                           const std::shared_ptr<xm::FileJobGroup>&)>
      override_jobs = [&](const auto& job, const auto& group) {
        if (job && job->env_vars.count(session::kMetricsPatternVariable) != 0) {
          job->env_vars[session::kMetricsPatternVariable] = pattern;
        }
        if (!group) return;
        for (const xm::FileJobGroup::Member& member : group->members) {
          override_jobs(member.job, member.group);
        }
      };
  override_jobs(file.job, file.group);
}

}  // namespace

int cmd_launch(session::Session& ctx, const Args& args) {
  if (names_launch_script(args)) return run_launch_script(ctx, args);
  ExperimentWait waiting;
  bool live_workdir = false;
  std::string metrics_pattern;
  po::options_description desc("launch options");
  desc.add_options()("help,h", "show this help");
  waiting.add_options(desc);
  desc.add_options()(
      "live-workdir", po::bool_switch(&live_workdir),
      "run process units from the live launch directory, not from its snapshot taken at launch "
      "(the file's live_workdir: true)");
  add_metrics_option(desc, metrics_pattern);
  po::variables_map vm;
  const auto path = parse_positional_command(
      "usage: sortie launch FILE [options]\n"
      "       sortie launch [--dryrun] FILE.py [-- ARGS...]",
      desc,
      "FILE (an experiment file, YAML or JSON, or a Python "
      "launch script FILE.py)",
      args, vm);
  if (!path) return kExitOk;
  waiting.check(vm);

  xm::ExperimentFile file = xm::read_experiment_file(*path);
  if (!metrics_pattern.empty()) ask_for_measurements(file, metrics_pattern);
  warn_shell_metrics_variables("sortie launch");
  xm::Experiment experiment = xm::SessionBinding::create(ctx, file.title, file.launch_dir, *path);
  if (live_workdir || file.live_workdir) xm::SessionBinding::use_live_workdir(experiment);
  bool packaged = false;
  size_t launched = 0;
  xm::FileLaunchEvents events;
  events.packaged = [&] {
    packaged = true;
    // Asking for the id records the experiment: one that failed to package leaves no record.
    std::printf("experiment %lld '%s'\n", static_cast<long long>(experiment.id()),
                printable(file.title).c_str());
    std::fflush(stdout);
  };
  events.launched = [&](const xm::WorkUnit& unit) {
    ++launched;
    for (const xm::JobHandle& job : unit.jobs) {
      std::printf("  work unit %d: %s %s\n", unit.id, printable(job.name).c_str(),
                  printable(job.app).c_str());
    }
    std::fflush(stdout);
  };
  try {
    xm::launch_experiment_file(file, experiment, events);
  } catch (const std::exception& error) {
    if (!packaged) throw;
    std::fprintf(stderr,
                 "sortie: experiment %lld: work unit %zu of %zu was not launched: %s\n"
                 "sortie: the %zu launched before it keep running (`sortie experiments cancel "
                 "%lld` stops them)\n",
                 static_cast<long long>(experiment.id()), launched + 1, file.work_units.size(),
                 error.what(), launched, static_cast<long long>(experiment.id()));
    return kExitBackend;
  }
  if (!waiting.wait) return kExitOk;
  return wait_for_experiment(experiment, waiting.timeout_s, "sortie launch");
}

}  // namespace sortie::cli
