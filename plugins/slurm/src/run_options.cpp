#include "run_options.hpp"

#include <unistd.h>

#include <sortie/error.hpp>
#include <sortie/run_options.hpp>

namespace sortie::slurm {
namespace {

constexpr RunOptionSpec kOptions[] = {
    {"partition", "str", "null",
     "partition to submit to (sbatch --partition; default: the cluster's)", RunOptionEffect::kNone},
    {"time", "str", "null", "time limit, as sbatch --time takes it (30, 1:00:00, 2-00:00:00)",
     RunOptionEffect::kNone},
    {"account", "str", "null", "account to charge (sbatch --account)", RunOptionEffect::kNone},
    {"qos", "str", "null", "quality of service (sbatch --qos)", RunOptionEffect::kNone},
    {"constraint", "str", "null", "node features every role needs (sbatch --constraint)",
     RunOptionEffect::kNone},
    {"comment", "str", "null", "text added to the job comment, after sortie's own tag",
     RunOptionEffect::kNone},
    {"mail_user", "str", "null", "who is mailed about the job (sbatch --mail-user)",
     RunOptionEffect::kSendsData},
    {"mail_type", "str", "null", "when mail is sent: BEGIN, END, FAIL, ALL... (sbatch --mail-type)",
     RunOptionEffect::kNone},
    {"exclusive", "bool", "false", "nodes are not shared with other jobs (sbatch --exclusive)",
     RunOptionEffect::kNone},
    {"job_dir", "str", "null",
     "directory holding each job's directory (script, task files, logs); must be visible from "
     "the compute nodes (default: <state_dir>/jobs)",
     RunOptionEffect::kChoosesWriteLocation},
    {"workdir", "str", "null", "directory the replicas start in (default: the current directory)",
     RunOptionEffect::kChoosesWriteLocation},
    {"read_only_workdir", "bool", "false",
     "make the directory a role's replicas start in read-only to them, root included: each task "
     "enters a mount namespace of its own where it is bind-mounted read-only; a task that cannot "
     "make one fails, naming why (experiments set it for their snapshots; host roles only)",
     RunOptionEffect::kNone},
    {"sbatch_lines", "list", "null",
     "extra batch script directives, each written as '#SBATCH <line>' after sortie's own",
     RunOptionEffect::kRunsProgram},
    {"max_preemptions", "int", "3",
     "requeues (scontrol requeue, preemption, node failure) the job survives; separate from the "
     "roles' max_retries, which counts failures (default: 3)",
     RunOptionEffect::kNone},
    {"max_timeouts", "int", "0",
     "times the job is requeued when it reaches its time limit; it gets SIGUSR1 signal_lead "
     "seconds before, to checkpoint (default: 0; needs time)",
     RunOptionEffect::kNone},
    {"signal_lead", "int", "60", "seconds before the time limit that SIGUSR1 is sent (default: 60)",
     RunOptionEffect::kNone},
    {"array_parallelism", "int", "0",
     "when apps are submitted together as one job array (a sweep's work units), how many of "
     "them run at once (sbatch --array=0-N%P; default: 0, no limit)",
     RunOptionEffect::kNone},
    {"container", "str", "\"docker\"",
     "how a role's image runs: docker (docker run in the step), pyxis (srun --container-image) "
     "or apptainer (apptainer exec docker://IMAGE) (default: docker)",
     RunOptionEffect::kNone},
    {"role_jobs", "str", "\"hetjob\"",
     "how an app of several roles is submitted: hetjob (one heterogeneous job, a node per "
     "role) or separate (a job per role, the later ones with --dependency=after:<first>, so "
     "all start together and fit where a heterogeneous job cannot) (default: hetjob)",
     RunOptionEffect::kNone},
    {"sbatch", "str", "\"sbatch\"", "the sbatch program (default: sbatch from PATH)",
     RunOptionEffect::kRunsProgram},
    {"squeue", "str", "\"squeue\"", "the squeue program (default: squeue from PATH)",
     RunOptionEffect::kRunsProgram},
    {"sacct", "str", "\"sacct\"", "the sacct program (default: sacct from PATH)",
     RunOptionEffect::kRunsProgram},
    {"scancel", "str", "\"scancel\"", "the scancel program (default: scancel from PATH)",
     RunOptionEffect::kRunsProgram},
    {"scontrol", "str", "\"scontrol\"", "the scontrol program (default: scontrol from PATH)",
     RunOptionEffect::kRunsProgram},
    {"sinfo", "str", "\"sinfo\"", "the sinfo program (default: sinfo from PATH)",
     RunOptionEffect::kRunsProgram},
};

std::string current_directory() {
  char buffer[4096];
  if (::getcwd(buffer, sizeof(buffer)) == nullptr) {
    throw Error::failed_precondition("slurm: cannot determine the current working directory");
  }
  return buffer;
}

std::string absolute(std::string path) {
  return path.empty() || path[0] == '/' ? path : current_directory() + "/" + path;
}

}  // namespace

std::string run_options_payload() { return write_run_options(kOptions); }

SlurmOptions parse_run_options(std::string_view cfg_json, const std::string& state_dir) {
  const TypedRunOptions values = read_run_options(cfg_json, kOptions, "slurm");
  SlurmOptions options;
  options.partition = values.str("partition", "");
  options.time = values.str("time", "");
  options.account = values.str("account", "");
  options.qos = values.str("qos", "");
  options.constraint = values.str("constraint", "");
  options.comment = values.str("comment", "");
  options.mail_user = values.str("mail_user", "");
  options.mail_type = values.str("mail_type", "");
  options.exclusive = values.boolean("exclusive");
  options.job_dir = absolute(values.str("job_dir", state_dir + "/jobs"));
  options.workdir = absolute(values.str("workdir", current_directory()));
  options.read_only_workdir = values.boolean("read_only_workdir");
  for (std::string& text : values.strings("sbatch_lines").value_or(std::vector<std::string>{})) {
    if (text.find('\n') != std::string::npos) {
      throw Error::invalid_argument("run option 'sbatch_lines': '" + text +
                                    "' holds a newline; give one directive per entry");
    }
    options.sbatch_lines.push_back(std::move(text));
  }
  options.max_preemptions = values.integer("max_preemptions");
  options.max_timeouts = values.integer("max_timeouts");
  options.signal_lead = values.integer("signal_lead");
  options.array_parallelism = values.integer("array_parallelism");
  if (options.array_parallelism < 0) {
    throw Error::invalid_argument("run option 'array_parallelism' must be >= 0 (0: no limit)");
  }
  if (options.max_preemptions < 0 || options.max_timeouts < 0 || options.signal_lead < 1) {
    throw Error::invalid_argument(
        "run options 'max_preemptions' and 'max_timeouts' must be >= 0, 'signal_lead' >= 1");
  }
  if (options.max_timeouts > 0 && options.time.empty()) {
    throw Error::invalid_argument(
        "run option 'max_timeouts' needs a time limit: set the run option 'time' too");
  }
  const std::string container = values.str("container");
  if (container == "docker") {
    options.container = ContainerRuntime::kDocker;
  } else if (container == "pyxis") {
    options.container = ContainerRuntime::kPyxis;
  } else if (container == "apptainer") {
    options.container = ContainerRuntime::kApptainer;
  } else {
    throw Error::invalid_argument("run option 'container': '" + container +
                                  "' is not one of docker, pyxis, apptainer");
  }
  const std::string role_jobs = values.str("role_jobs");
  if (role_jobs != "hetjob" && role_jobs != "separate") {
    throw Error::invalid_argument("run option 'role_jobs': '" + role_jobs +
                                  "' is not one of hetjob, separate");
  }
  options.separate_role_jobs = role_jobs == "separate";
  options.tools.sbatch = values.str("sbatch");
  options.tools.squeue = values.str("squeue");
  options.tools.sacct = values.str("sacct");
  options.tools.scancel = values.str("scancel");
  options.tools.scontrol = values.str("scontrol");
  options.tools.sinfo = values.str("sinfo");
  return options;
}

}  // namespace sortie::slurm
