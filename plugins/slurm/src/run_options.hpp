// The slurm scheduler's run options (`sortie runopts slurm`): where and how the job is
// submitted. Unknown options and wrong types are refused naming the option.
#ifndef SORTIE_SLURM_RUN_OPTIONS_HPP
#define SORTIE_SLURM_RUN_OPTIONS_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::slurm {

// The command-line tools, by name (looked up in PATH) or path.
struct SlurmTools {
  std::string sbatch = "sbatch";
  std::string squeue = "squeue";
  std::string sacct = "sacct";
  std::string scancel = "scancel";
  std::string scontrol = "scontrol";
  std::string sinfo = "sinfo";
};

enum class ContainerRuntime { kDocker, kPyxis, kApptainer };

struct SlurmOptions {
  std::string partition;
  std::string time;  // Slurm's --time syntax: "30", "1:00:00", "2-00:00:00"
  std::string account;
  std::string qos;
  std::string constraint;
  std::string comment;
  std::string mail_user;
  std::string mail_type;
  bool exclusive = false;
  std::string job_dir;                    // the base of job directories; "" = <state_dir>/jobs
  std::string workdir;                    // where tasks start; "" = the current directory at dryrun
  bool read_only_workdir = false;         // each task makes where it starts read-only to the app
  std::vector<std::string> sbatch_lines;  // extra "#SBATCH ..." lines, verbatim after ours
  int64_t max_preemptions = 3;
  int64_t max_timeouts = 0;
  int64_t signal_lead = 60;       // seconds before the time limit that SIGUSR1 arrives
  int64_t array_parallelism = 0;  // tasks of a job array running at once; 0 = no limit
  ContainerRuntime container = ContainerRuntime::kDocker;
  bool separate_role_jobs = false;  // role_jobs=separate: a job per role, tied by a dependency
  SlurmTools tools;
};

std::string run_options_payload();

// Reads the "cfg" object of sortie.dryrun_input/1 (JSON text).
SlurmOptions parse_run_options(std::string_view cfg_json, const std::string& state_dir);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_RUN_OPTIONS_HPP
