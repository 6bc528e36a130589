// File: sortie/core/experiment_file_launch.hpp
//
// What `sortie launch FILE` does with an experiment file, over the launch API of sortie/xm.hpp:
// package its executables in one batch, then add its work units in order.
#ifndef SORTIE_CORE_EXPERIMENT_FILE_LAUNCH_HPP
#define SORTIE_CORE_EXPERIMENT_FILE_LAUNCH_HPP

#include <functional>
#include <sortie/core/experiment_file.hpp>
#include <sortie/xm.hpp>

namespace sortie::core {

struct FileLaunchEvents {
  std::function<void()> packaged;                     // every executable is packaged
  std::function<void(const xm::WorkUnit&)> launched;  // after each work unit, in order
};

// Launches `file` into `experiment`, telling `events` as it goes; the first error stops it (the
// work units launched before keep running).
void launch_experiment_file(const ExperimentFile& file, xm::Experiment& experiment,
                            const FileLaunchEvents& events);

}  // namespace sortie::core

#endif  // SORTIE_CORE_EXPERIMENT_FILE_LAUNCH_HPP
