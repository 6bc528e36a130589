#include <map>
#include <sortie/xm/experiment_file_launch.hpp>

namespace sortie::xm {
namespace {

void launch_work_units(const ExperimentFile& file, Experiment& experiment,
                       const std::vector<Executable>& executables, const FileLaunchEvents& events) {
  std::map<std::string, Executable> packaged;
  for (size_t i = 0; i < executables.size(); ++i) {
    packaged[file.executables[i].first] = executables[i];
  }
  if (file.job) {
    // A sweep launches as one batch where its scheduler can (of one job: a Slurm job array).
    std::vector<JobArgs> units;
    for (const GroupArgs& overrides : file.work_units) {
      const auto it = overrides.find(file.job->name);
      units.push_back(it != overrides.end() ? it->second : JobArgs{});
    }
    for (const WorkUnit& unit : experiment.add_sweep(resolve_job(*file.job, packaged), units)) {
      events.launched(unit);
    }
    return;
  }
  for (const WorkUnit& unit :
       experiment.add_sweep(resolve_group(*file.group, packaged), file.work_units)) {
    events.launched(unit);
  }
}

}  // namespace

void launch_experiment_file(const ExperimentFile& file, Experiment& experiment,
                            const FileLaunchEvents& events) {
  std::vector<Packageable> packageables;
  for (const auto& [name, packageable] : file.executables) packageables.push_back(packageable);
  const std::vector<Executable> executables = experiment.package(packageables);
  events.packaged();
  // One mark over every unit of the file: a launch killed between two units reads PARTIAL.
  experiment.begin_launch(static_cast<int64_t>(file.work_units.size()));
  try {
    launch_work_units(file, experiment, executables, events);
  } catch (...) {
    experiment.finish_launch();
    throw;
  }
  experiment.finish_launch();
}

}  // namespace sortie::xm
