// Runs one Slurm command-line tool (sbatch, squeue, sacct, scancel, scontrol, sinfo) as an exec'd
// argv, never through a shell, and returns what it printed.
#ifndef SORTIE_SLURM_SLURM_COMMAND_HPP
#define SORTIE_SLURM_SLURM_COMMAND_HPP

#include <string>
#include <vector>

namespace sortie::slurm {

struct CommandResult {
  int exit_code = 0;  // 128 + N when killed by signal N; 127 when it could not be started
  std::string out;
  std::string err;
};

// Runs argv (argv[0] looked up in PATH when it has no '/'), stdin read from `stdin_path` (a
// file, so that a long input cannot block on a full pipe).
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::string& stdin_path = "/dev/null");

// run_command, throwing sortie::Error UNAVAILABLE naming the command and its stderr when it
// fails (FAILED_PRECONDITION when the tool is missing).
std::string checked_output(const std::vector<std::string>& argv);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_SLURM_COMMAND_HPP
