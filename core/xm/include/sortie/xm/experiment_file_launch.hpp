// File: sortie/xm/experiment_file_launch.hpp
//
// What `sortie launch FILE` does with an experiment file, over the launch API of sortie/xm.hpp:
// package its executables in one batch, then add its work units in order.
#ifndef SORTIE_XM_EXPERIMENT_FILE_LAUNCH_HPP
#define SORTIE_XM_EXPERIMENT_FILE_LAUNCH_HPP

#include <functional>
#include <sortie/xm.hpp>
#include <sortie/xm/experiment_file.hpp>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm {

struct FileLaunchEvents {
  std::function<void()> packaged;                 // every executable is packaged
  std::function<void(const WorkUnit&)> launched;  // after each work unit, in order
};

// Launches `file` into `experiment`, telling `events` as it goes; the first error stops it (the
// work units launched before keep running).
void launch_experiment_file(const ExperimentFile& file, Experiment& experiment,
                            const FileLaunchEvents& events);

}  // namespace sortie::xm
#pragma GCC visibility pop

#endif  // SORTIE_XM_EXPERIMENT_FILE_LAUNCH_HPP
