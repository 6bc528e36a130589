// File: sortie/xm/experiment_file.hpp
//
// Experiment files (docs/experiments.md), the declarative form of the launch API in
// sortie/xm.hpp: a title, named executables, named executors, the job or job group every work
// unit runs, and the work units themselves (explicit per-job args and/or a sweep). YAML or JSON.
#ifndef SORTIE_XM_EXPERIMENT_FILE_HPP
#define SORTIE_XM_EXPERIMENT_FILE_HPP

#include <memory>
#include <sortie/xm.hpp>
#include <string>
#include <utility>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm {

// A job as written: its executable is referenced by name until it is packaged.
struct FileJob {
  std::string executable;  // a key of ExperimentFile::executables
  Executor executor;
  std::string name;  // never empty after reading (defaults: executable name, or group key)
  Args args;
  EnvVars env_vars;
};

struct FileJobGroup {
  struct Member {
    std::string name;
    std::shared_ptr<FileJob> job;  // exactly one of job, group
    std::shared_ptr<FileJobGroup> group;
  };
  std::vector<Member> members;
};

struct ExperimentFile {
  std::string path;        // as given
  std::string launch_dir;  // absolute directory holding the file
  std::string title;
  std::vector<std::pair<std::string, Packageable>> executables;  // file order
  // Exactly one of job, group: what every work unit runs.
  std::shared_ptr<FileJob> job;
  std::shared_ptr<FileJobGroup> group;
  // One element per work unit, in order (ids 1..n): overrides by flattened job name (for a
  // single job, its name). Explicit work units first, then the sweep's; at least one.
  std::vector<GroupArgs> work_units;
  // Process units run from the live launch directory instead of its snapshot (Options).
  bool live_workdir = false;
};

// Reads and validates an experiment file. Errors are Error(SORTIE_INVALID_ARGUMENT) naming the
// file and the field ("exp.yaml: jobs.train.executor.requirements.ram: ...").
ExperimentFile read_experiment_file(const std::string& path);

// The job tree with packaged executables substituted (`packaged` by executable name).
Job resolve_job(const FileJob& job, const std::map<std::string, Executable>& packaged);
JobGroup resolve_group(const FileJobGroup& group,
                       const std::map<std::string, Executable>& packaged);

}  // namespace sortie::xm
#pragma GCC visibility pop

#endif  // SORTIE_XM_EXPERIMENT_FILE_HPP
