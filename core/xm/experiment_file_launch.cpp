#include <map>
#include <sortie/core/experiment_file_launch.hpp>

namespace sortie::core {

void launch_experiment_file(const ExperimentFile& file, xm::Experiment& experiment,
                            const FileLaunchEvents& events) {
  std::vector<xm::Packageable> packageables;
  for (const auto& [name, packageable] : file.executables) packageables.push_back(packageable);
  const std::vector<xm::Executable> executables = experiment.package(packageables);
  events.packaged();
  std::map<std::string, xm::Executable> packaged;
  for (size_t i = 0; i < executables.size(); ++i) {
    packaged[file.executables[i].first] = executables[i];
  }
  for (const xm::GroupArgs& overrides : file.work_units) {
    if (file.job) {
      xm::JobArgs job_args;
      if (const auto it = overrides.find(file.job->name); it != overrides.end()) {
        job_args = it->second;
      }
      events.launched(experiment.add(resolve_job(*file.job, packaged), job_args));
    } else {
      events.launched(experiment.add(resolve_group(*file.group, packaged), overrides));
    }
  }
}

}  // namespace sortie::core
