#include "batch_plan.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sortie/error.hpp>
#include <sortie/field_support.hpp>
#include <sortie/macros.hpp>

#include "json_fields.hpp"

namespace sortie::slurm {
namespace {

constexpr const char* kRank0Env = "SORTIE_RANK0_HOST";
// Environment the batch script sets for every task, handed into containers by name.
constexpr const char* kJobEnv[] = {"SORTIE_RANK0_HOST", "MASTER_ADDR", "SORTIE_FREE_PORT",
                                   "SORTIE_REPLICA_ID", "SORTIE_ATTEMPT"};
constexpr const char* kTasksPerNode = "slurm.ntasks_per_node";

// 'text' for bash: single quotes, each ' written as '\''.
std::string shell_quote(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// A value written after `#SBATCH --name=`, where sbatch splits at white space.
void require_directive_value(std::string_view what, std::string_view value) {
  if (value.find_first_of(" \t\n\r\"'") != std::string_view::npos) {
    throw Error::invalid_argument(std::string(what) + " '" + std::string(value) +
                                  "' holds white space or quotes, which #SBATCH lines cannot "
                                  "carry; choose a value without them");
  }
}

// Job and role names go into #SBATCH lines and file paths.
void require_slurm_name(std::string_view what, std::string_view name) {
  const bool valid =
      !name.empty() && name.size() <= 128 && name != "." && name != ".." &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
          std::string_view::npos;
  if (!valid) {
    throw Error::invalid_argument(std::string(what) + " '" + std::string(name) +
                                  "' is not a valid Slurm job name here: use 1 to 128 letters, "
                                  "digits, '_', '.' or '-'");
  }
}

std::string nul_joined(const std::vector<std::string>& entries) {
  std::string joined;
  for (const std::string& entry : entries) {
    joined += entry;
    joined += '\0';
  }
  return joined;
}

// Where Slurm takes the role's resources from: capabilities "slurm.partition",
// "slurm.constraint" and "slurm.gres" (named resources), else the run options.
struct RoleDirectives {
  std::string partition;
  std::string constraint;
  std::vector<std::string> gres;
};

RoleDirectives role_directives(const Role& role, const SlurmOptions& options, size_t index) {
  RoleDirectives directives{options.partition, options.constraint, {}};
  for (const auto& [key, value] : role.resource.capabilities) {
    const std::string at = "roles[" + std::to_string(index) + "].resource.capabilities." + key;
    require_directive_value(at, value);
    if (key == "slurm.partition") {
      directives.partition = value;
    } else if (key == "slurm.constraint") {
      directives.constraint = value;
    } else if (key == "slurm.gres") {
      directives.gres.push_back(value);
    } else {
      throw Error::invalid_argument(at +
                                    " is not supported by slurm; it knows slurm.partition, "
                                    "slurm.constraint and slurm.gres");
    }
  }
  for (const auto& [device, count] : role.resource.devices) {
    require_directive_value("roles[" + std::to_string(index) + "].resource.devices", device);
    directives.gres.push_back(device + ":" + std::to_string(count));
  }
  return directives;
}

// How a role runs: in a container image, or on the host in a directory (image "" or "." is the
// run option workdir; an absolute path is a directory on storage the nodes share, as TorchX's
// slurm scheduler reads it), and how its tasks spread over nodes (role metadata).
struct RoleSettings {
  bool container = false;
  std::string host_dir;        // where a host role's replicas start
  int64_t tasks_per_node = 0;  // slurm.ntasks_per_node; 0 = unset (packed as Slurm likes)
  int64_t nodes = 0;           // ceil(replicas / tasks_per_node) when set
};

RoleSettings role_settings(const Role& role, const SlurmOptions& options, size_t index) {
  const std::string at = "roles[" + std::to_string(index) + "]";
  RoleSettings settings;
  const std::string& image = role.image;
  if (image.empty() || image == ".") {
    settings.host_dir = options.workdir;
  } else if (image.front() == '/') {
    if (!std::filesystem::is_directory(image)) {
      throw Error::invalid_argument(
          at + ".image '" + image +
          "' is not a directory on this host: on slurm an absolute image path is the directory "
          "the role's replicas start in, on storage every node shares (no container runs); "
          "create it, or name a container image (e.g. python:3.11)");
    }
    settings.host_dir = image;
  } else if (image.front() == '.') {
    throw Error::invalid_argument(
        at + ".image '" + image +
        "' is a relative path: on slurm an image that is a directory must be absolute (the "
        "replicas start in it, on storage every node shares); '' or '.' runs them in the run "
        "option workdir, and a name (e.g. python:3.11) runs a container");
  } else {
    settings.container = true;
  }
  if (settings.container && options.read_only_workdir) {
    throw Error::invalid_argument(
        at +
        ": run option read_only_workdir makes the directory a host role starts in "
        "read-only, but this role runs image '" +
        image + "' in a container; drop the option, or run the role from a directory");
  }
  for (const auto& [key, json] : role.metadata) {
    if (key.rfind("slurm.", 0) != 0) continue;  // another scheduler's
    if (key != kTasksPerNode) {
      throw Error::invalid_argument(at + ".metadata key '" + key +
                                    "' is not supported by slurm; it knows " + kTasksPerNode);
    }
    rapidjson::Document value;
    value.Parse(json.data(), json.size());
    if (value.HasParseError() || !value.IsInt64() || value.GetInt64() < 1) {
      throw Error::invalid_argument(at + ".metadata '" + key + "' is " + json +
                                    "; it must be an integer of at least 1 (tasks on a node)");
    }
    settings.tasks_per_node = value.GetInt64();
    settings.nodes = (role.num_replicas + settings.tasks_per_node - 1) / settings.tasks_per_node;
  }
  return settings;
}

std::vector<std::string> container_argv(const Role& role, const SlurmOptions& options,
                                        const std::string& output_dir,
                                        const std::vector<std::string>& env_names,
                                        const std::vector<std::string>& command) {
  std::vector<std::string> argv;
  if (options.container == ContainerRuntime::kDocker) {
    argv = {"docker", "run",           "--rm", "--network=host",
            "-w",     options.workdir, "-v",   options.workdir + ":" + options.workdir};
    if (!output_dir.empty()) argv.insert(argv.end(), {"-v", output_dir + ":" + output_dir});
    for (const std::string& name : env_names) argv.insert(argv.end(), {"-e", name});
    if (!role.entrypoint.empty()) argv.insert(argv.end(), {"--entrypoint", role.entrypoint});
    argv.push_back(role.image);
    argv.insert(argv.end(), command.begin() + (role.entrypoint.empty() ? 0 : 1), command.end());
  } else if (options.container == ContainerRuntime::kApptainer) {
    argv = {"apptainer", role.entrypoint.empty() ? "run" : "exec", "--pwd", options.workdir};
    if (!output_dir.empty()) argv.insert(argv.end(), {"--bind", output_dir});
    argv.push_back("docker://" + role.image);
    argv.insert(argv.end(), command.begin(), command.end());
  } else {
    argv = command;  // pyxis: srun itself starts the task inside the image
  }
  return argv;
}

void write_task_files(BatchPlan& plan, const SlurmOptions& options, const Role& role,
                      const RoleSettings& settings, int64_t world_size) {
  for (int64_t id = 0; id < role.num_replicas; ++id) {
    MacroValues macros;
    macros.set("app_id", plan.app_id)
        .set("replica_id", std::to_string(id))
        .set("num_replicas", std::to_string(role.num_replicas))
        .set("role_name", role.name)
        .set("img_root", settings.container ? options.workdir : settings.host_dir)
        // ${rank0_host} and ${free_port} are left for the task, which knows them
        .set("rank0_env", kRank0Env);
    if (!plan.output_dir.empty()) macros.set(kOutputDirMacro, plan.output_dir);
    std::vector<std::string> command;
    if (!role.entrypoint.empty()) command.push_back(role.entrypoint);
    for (const std::string& arg : role.args) command.push_back(macros.apply(arg));
    std::vector<std::pair<std::string, std::string>> env = {
        {"SORTIE_APP_ID", plan.app_id},
        {"SORTIE_ROLE_NAME", role.name},
        {"SORTIE_NUM_REPLICAS", std::to_string(role.num_replicas)},
        {"SORTIE_WORLD_SIZE", std::to_string(world_size)},
        {"PYTHONUNBUFFERED", "x"}};
    for (const auto& [name, value] : role.env) env.emplace_back(name, macros.apply(value));
    if (!plan.output_dir.empty()) env.emplace_back(kOutputDirEnv, plan.output_dir);
    std::vector<std::string> env_entries;
    std::vector<std::string> env_names(std::begin(kJobEnv), std::end(kJobEnv));
    for (const auto& [name, value] : env) {
      env_entries.push_back(name + "=" + value);
      env_names.push_back(name);
    }
    const std::vector<std::string> argv =
        settings.container ? container_argv(role, options, plan.output_dir, env_names, command)
                           : command;
    const std::string base = "tasks/" + role.name + "/" + std::to_string(id);
    plan.files.emplace_back(base + ".argv", nul_joined(argv));
    plan.files.emplace_back(base + ".env", nul_joined(env_entries));
  }
}

int64_t cpus_of(const Role& role) {
  return role.resource.cpu > 0 ? static_cast<int64_t>(std::ceil(role.resource.cpu)) : 1;
}

// What every job script of an app is written from; the memory question is asked once, lazily.
struct ScriptInputs {
  const AppDef& app;
  const BatchPlan& plan;
  const SlurmOptions& options;
  const ClusterQuestions& cluster;
  const std::string& task_program;
  const std::vector<RoleSettings>& settings;  // per role
  bool memory_checked = false;
  bool memory_consumable = false;

  bool memory_is_consumable() {
    if (!memory_checked) {
      memory_consumable = cluster.memory_is_consumable(options.tools);
      memory_checked = true;
    }
    return memory_consumable;
  }
};

std::string role_block(ScriptInputs& in, size_t index) {
  const Role& role = in.app.roles[index];
  const RoleDirectives where = role_directives(role, in.options, index);
  const RoleSettings& settings = in.settings[index];
  std::string block = "# role " + role.name + "\n";
  block += "#SBATCH --ntasks=" + std::to_string(role.num_replicas) + "\n";
  if (settings.tasks_per_node > 0) {
    // --ntasks-per-node is a maximum once --ntasks is given; --nodes makes Slurm spread them.
    block += "#SBATCH --nodes=" + std::to_string(settings.nodes) +
             "\n#SBATCH --ntasks-per-node=" + std::to_string(settings.tasks_per_node) + "\n";
  }
  if (!where.partition.empty()) block += "#SBATCH --partition=" + where.partition + "\n";
  if (!where.constraint.empty()) block += "#SBATCH --constraint=" + where.constraint + "\n";
  if (in.options.exclusive) block += "#SBATCH --exclusive\n";
  const int64_t cpus = cpus_of(role);
  block += "#SBATCH --cpus-per-task=" + std::to_string(cpus) + "\n";
  if (role.resource.mem_mb > 0) {
    if (in.memory_is_consumable()) {
      const int64_t per_cpu = (role.resource.mem_mb + cpus - 1) / cpus;
      block += "#SBATCH --mem-per-cpu=" + std::to_string(per_cpu) + "\n";
    } else {
      block += "# sortie: resource.memMB=" + std::to_string(role.resource.mem_mb) +
               " dropped: memory is not a consumable resource on this cluster "
               "(SelectTypeParameters has no MEMORY)\n";
    }
  }
  if (role.resource.gpu > 0) {
    block += "#SBATCH --gpus-per-task=" + std::to_string(role.resource.gpu) + "\n";
  }
  for (const std::string& gres : where.gres) block += "#SBATCH --gres=" + gres + "\n";
  return block;
}

std::string srun_line(const Role& role, const RoleSettings& settings,
                      std::optional<size_t> het_group, const SlurmOptions& options,
                      const BatchPlan& plan) {
  std::string line = "  srun";
  if (het_group) line += " --het-group=" + std::to_string(*het_group);
  // srun does not inherit --cpus-per-task from the allocation (Slurm 22.05 and later), so the
  // step states the role's whole shape itself rather than rely on what it inherits.
  line += " --ntasks=" + std::to_string(role.num_replicas);
  if (settings.tasks_per_node > 0) {
    line += " --nodes=" + std::to_string(settings.nodes) +
            " --ntasks-per-node=" + std::to_string(settings.tasks_per_node);
  }
  line += " --cpus-per-task=" + std::to_string(cpus_of(role));
  if (role.resource.gpu > 0) line += " --gpus-per-task=" + std::to_string(role.resource.gpu);
  line += " --kill-on-bad-exit=0";
  if (!settings.container && settings.host_dir != options.workdir) {
    line += " --chdir=" + shell_quote(settings.host_dir);
  }
  if (settings.container && options.container == ContainerRuntime::kPyxis) {
    line += " --container-image=" + shell_quote(role.image) +
            " --container-workdir=" + shell_quote(options.workdir) + " --container-mounts=" +
            shell_quote(options.workdir + "," + plan.job_dir +
                        (plan.output_dir.empty() ? "" : "," + plan.output_dir));
  }
  line += " \"$task\" \"$job_dir\" " + shell_quote(role.name);
  if (options.read_only_workdir) line += " --read-only " + shell_quote(settings.host_dir);
  return line + " &\n";
}

// How a job learns the rank-0 host (the host of the first node of the first role).
enum class Rank0Source {
  kOwnFirstNode,        // the job runs the first role
  kOwnFirstNodeShared,  // ... and writes it to <job_dir>/rank0_host for the other roles' jobs
  kSharedByFirstJob,    // the job waits for <job_dir>/rank0_host
};

std::string rank0_lines(const ScriptInputs& in, Rank0Source source) {
  const std::string scontrol = shell_quote(in.options.tools.scontrol);
  if (source == Rank0Source::kSharedByFirstJob) {
    // The first role's job has started (--dependency=after:) and writes the host first thing,
    // the port as its first attempt starts.
    return "# The rank-0 host and port, written by the first role's job, which this job depends "
           "on.\n"
           "first_job=${SLURM_JOB_DEPENDENCY:-}\n"
           "first_job=${first_job#after:}\n"
           "first_job=${first_job%%[:,?]*}\n"
           "until [[ -s $job_dir/rank0_host && -s $job_dir/free_port ]]; do\n"
           "  if ! [[ $(" +
           shell_quote(in.options.tools.squeue) +
           " -h -j \"$first_job\" -o %T 2>/dev/null) =~ "
           "^(PENDING|CONFIGURING|RUNNING|REQUEUED|REQUEUE_HOLD|SUSPENDED)$ ]]; then\n"
           "    echo \"sortie: job $first_job (role " +
           in.app.roles.front().name +
           ") ended before writing the rank-0 host and port\" >&2\n"
           "    exit 1\n"
           "  fi\n"
           "  sleep 1\n"
           "done\n"
           "first_node=$(<\"$job_dir/rank0_host\")\n"
           "export SORTIE_RANK0_HOST=$first_node MASTER_ADDR=$first_node\n";
  }
  std::string lines =
      "# The rank-0 host: the host of the first node of the first role.\n"
      "first_node=$(" +
      scontrol +
      " show hostnames \"${SLURM_JOB_NODELIST_HET_GROUP_0:-$SLURM_JOB_NODELIST}\" | head -n 1)\n"
      "[[ $(" +
      scontrol +
      " -o show node \"$first_node\") =~ NodeHostName=([^ ]+) ]] && "
      "first_node=${BASH_REMATCH[1]}\n"
      "export SORTIE_RANK0_HOST=$first_node MASTER_ADDR=$first_node\n";
  if (source == Rank0Source::kOwnFirstNodeShared) {
    lines +=
        "echo \"$first_node\" >\"$job_dir/rank0_host.tmp\" && "
        "mv -f \"$job_dir/rank0_host.tmp\" \"$job_dir/rank0_host\"\n";
  }
  return lines;
}

// The start of each attempt's loop: ${free_port} (SORTIE_FREE_PORT), chosen by the job that runs
// the first role on its first node, where this script runs (the rank-0 host), for each attempt.
std::string free_port_lines(Rank0Source source) {
  if (source == Rank0Source::kSharedByFirstJob) {
    return "  export SORTIE_FREE_PORT=$(<\"$job_dir/free_port\")\n";
  }
  std::string lines =
      "  SORTIE_FREE_PORT=$(\"$task\" --free-port) || exit 1\n"
      "  export SORTIE_FREE_PORT\n";
  if (source == Rank0Source::kOwnFirstNodeShared) {
    lines +=
        "  echo \"$SORTIE_FREE_PORT\" >\"$job_dir/free_port.tmp\" && "
        "mv -f \"$job_dir/free_port.tmp\" \"$job_dir/free_port\"\n";
  }
  return lines;
}

// The batch script of one job running `roles` (indices into app.roles; several: a
// heterogeneous job), keeping its ledger in <job_dir>/<ledger>.
std::string job_script(ScriptInputs& in, const std::vector<size_t>& roles,
                       const std::string& comment_tag, const std::string& ledger,
                       Rank0Source rank0) {
  const SlurmOptions& options = in.options;
  const BatchPlan& plan = in.plan;
  std::string script = "#!/bin/bash\n";
  script += "#SBATCH --job-name=" + in.app.name + "\n";
  script += "#SBATCH --comment=" + comment_tag +
            (options.comment.empty() ? "" : "," + options.comment) + "\n";
  script += "#SBATCH --output=" + plan.job_dir + "/slurm-%j.out\n";
  script += "#SBATCH --chdir=" + options.workdir + "\n";
  script += "#SBATCH --requeue\n";
  if (!options.time.empty()) script += "#SBATCH --time=" + options.time + "\n";
  if (options.max_timeouts > 0) {
    script += "#SBATCH --signal=B:USR1@" + std::to_string(options.signal_lead) + "\n";
  }
  if (!options.account.empty()) script += "#SBATCH --account=" + options.account + "\n";
  if (!options.qos.empty()) script += "#SBATCH --qos=" + options.qos + "\n";
  if (!options.mail_user.empty()) script += "#SBATCH --mail-user=" + options.mail_user + "\n";
  if (!options.mail_type.empty()) script += "#SBATCH --mail-type=" + options.mail_type + "\n";
  for (const std::string& line : options.sbatch_lines) script += "#SBATCH " + line + "\n";
  int64_t max_retries = 0;
  for (size_t i = 0; i < roles.size(); ++i) {
    if (i > 0) script += "#SBATCH hetjob\n";
    script += role_block(in, roles[i]);
    max_retries = std::max(max_retries, in.app.roles[roles[i]].max_retries);
  }
  const std::string scontrol = shell_quote(options.tools.scontrol);
  script += "set -u\n";
  script += "job_dir=" + shell_quote(plan.job_dir) + "\n";
  script += "task=" + shell_quote(in.task_program) + "\n";
  script += "ledger=\"$job_dir/" + ledger + "\"\n";
  script += "max_failures=" + std::to_string(max_retries) +
            " max_preemptions=" + std::to_string(options.max_preemptions) +
            " max_timeouts=" + std::to_string(options.max_timeouts) + "\n";
  script += rank0_lines(in, rank0);
  script +=
      "# The ledger has a line per attempt start and end; a start without an end was requeued.\n"
      "touch \"$ledger\"\n"
      "count() { grep -c -- \"$1\" \"$ledger\"; }\n"
      "last=$(tail -n 1 \"$ledger\")\n"
      "if [[ $last == start* ]]; then echo \"end ${last#start } preempted\" >>\"$ledger\"; fi\n"
      "if (($(count ' preempted$') > max_preemptions)); then\n"
      "  echo \"sortie: requeued more than max_preemptions=$max_preemptions times\" >&2\n"
      "  exit 1\n"
      "fi\n"
      "timed_out=0\n"
      "trap 'timed_out=1; kill -USR1 $(jobs -p) 2>/dev/null' USR1\n"
      "while :; do\n" +
      free_port_lines(rank0) +
      "  attempt=$(count '^start ')\n"
      "  echo \"start $attempt\" >>\"$ledger\"\n"
      "  export SORTIE_ATTEMPT=$attempt\n";
  for (size_t i = 0; i < roles.size(); ++i) {
    script += srun_line(in.app.roles[roles[i]], in.settings[roles[i]],
                        roles.size() > 1 ? std::optional<size_t>(i) : std::nullopt, options, plan);
  }
  script +=
      "  status=0\n"
      "  for step in $(jobs -p); do\n"
      "    while :; do wait \"$step\"; code=$?; kill -0 \"$step\" 2>/dev/null || break; done\n"
      "    ((code != 0)) && status=$code\n"
      "  done\n"
      "  if ((timed_out)); then\n"
      "    echo \"end $attempt timeout\" >>\"$ledger\"\n"
      "    if (($(count ' timeout$') <= max_timeouts)); then " +
      scontrol +
      " requeue \"$SLURM_JOB_ID\"; exit \"$status\"; fi\n"
      "    echo \"sortie: reached the time limit more than max_timeouts=$max_timeouts times\" "
      ">&2\n"
      "    exit 1\n"
      "  fi\n"
      "  if ((status == 0)); then echo \"end $attempt succeeded\" >>\"$ledger\"; exit 0; fi\n"
      // A step killed by SIGTERM or SIGKILL is most often Slurm ending the job (a requeue, a
      // preemption, a cancel), whose signal to this script can trail the step's end: wait for it
      // before calling the attempt a failure, or a preemption would spend the failure budget.
      "  if ((status == 143 || status == 137)); then sleep 5; fi\n"
      "  echo \"end $attempt failed $status\" >>\"$ledger\"\n"
      "  if (($(count ' failed ') > max_failures)); then exit \"$status\"; fi\n"
      "done\n";
  return script;
}

std::string partition_words(const std::string& partition) {
  return partition.empty() ? std::string("(default)") : "'" + partition + "'";
}

}  // namespace

std::string BatchPlan::job_file_name(std::string_view name, size_t job) const {
  return separate_jobs ? std::string(name) + "-" + roles.at(job).name : std::string(name);
}

std::string comment_tag(std::string_view app_id) { return "sortie-app=" + std::string(app_id); }

BatchPlan plan_batch(const DryrunInput& input, const SlurmOptions& options,
                     const std::string& task_program, const ClusterQuestions& cluster) {
  const AppDef& app = input.app;
  refuse_unsupported_fields(
      app, {"roles", "image", "args", "env", "num_replicas", "max_retries", "resource", "metadata"},
      "slurm");
  require_slurm_name("app name", app.name);
  BatchPlan plan;
  plan.app_id = input.app_id.empty() ? app.name : input.app_id;
  require_slurm_name("app id", plan.app_id);
  plan.name = app.name;
  plan.session = input.session;
  plan.job_dir = options.job_dir + "/" + plan.app_id;
  plan.output_dir = app.output_dir;
  plan.tools = options.tools;
  plan.array_parallelism = options.array_parallelism;
  plan.comment_tag = comment_tag(plan.app_id);
  require_directive_value("run option 'job_dir'", options.job_dir);
  require_directive_value("run option 'workdir'", options.workdir);
  for (const auto& [what, value] :
       {std::pair<const char*, const std::string&>{"run option 'partition'", options.partition},
        {"run option 'time'", options.time},
        {"run option 'account'", options.account},
        {"run option 'qos'", options.qos},
        {"run option 'constraint'", options.constraint},
        {"run option 'comment'", options.comment},
        {"run option 'mail_user'", options.mail_user},
        {"run option 'mail_type'", options.mail_type}}) {
    require_directive_value(what, value);
  }

  int64_t world_size = 0;
  std::vector<RoleSettings> settings;
  int64_t hetjob_nodes = 0;  // a node per role at least: components do not share nodes
  for (size_t i = 0; i < app.roles.size(); ++i) {
    const Role& role = app.roles[i];
    require_slurm_name("roles[" + std::to_string(i) + "].name", role.name);
    if (role.max_retries > 0 && role.retry_policy == RetryPolicy::kReplica) {
      throw Error::invalid_argument(
          "roles[" + std::to_string(i) +
          "].retry_policy REPLICA is not supported by slurm: a retry restarts the whole job "
          "step; use APPLICATION");
    }
    settings.push_back(role_settings(role, options, i));
    hetjob_nodes += std::max<int64_t>(1, settings.back().nodes);
    world_size += role.num_replicas;
    plan.roles.push_back({role.name, role.num_replicas});
  }
  plan.separate_jobs = options.separate_role_jobs && app.roles.size() > 1;
  if (app.roles.size() > 1 && !plan.separate_jobs) {
    const int64_t nodes = cluster.usable_nodes(options.tools, options.partition);
    if (nodes < hetjob_nodes) {
      const std::string spread =
          hetjob_nodes > static_cast<int64_t>(app.roles.size())
              ? " (" + std::to_string(hetjob_nodes) + " with the roles' " + kTasksPerNode + ")"
              : "";
      throw Error::failed_precondition(
          "slurm: " + std::to_string(app.roles.size()) +
          " roles run as one heterogeneous job, which needs a node per role" + spread +
          ", but partition " + partition_words(options.partition) + " has " +
          std::to_string(nodes) +
          " usable node(s); it would stay PENDING (Resources). Run the roles as separate jobs "
          "tied by a dependency with the run option role_jobs=separate, or choose a partition "
          "with enough nodes");
    }
  } else {
    for (size_t i = 0; i < app.roles.size(); ++i) {
      if (settings[i].nodes < 2) continue;
      const std::string partition = role_directives(app.roles[i], options, i).partition;
      const int64_t nodes = cluster.usable_nodes(options.tools, partition);
      if (nodes < settings[i].nodes) {
        throw Error::failed_precondition(
            "slurm: roles[" + std::to_string(i) + "] (" + app.roles[i].name + ") has " +
            std::to_string(app.roles[i].num_replicas) + " replicas at " + kTasksPerNode + "=" +
            std::to_string(settings[i].tasks_per_node) + ", which need " +
            std::to_string(settings[i].nodes) + " nodes, but partition " +
            partition_words(partition) + " has " + std::to_string(nodes) +
            " usable node(s); lower num_replicas, raise " + kTasksPerNode +
            ", or choose a partition with enough nodes");
      }
    }
  }

  ScriptInputs in{app, plan, options, cluster, task_program, settings};
  const std::string first_script = plan.job_dir + "/batch.sh";
  plan.sbatch_argv = {options.tools.sbatch, "--parsable", first_script};
  if (!plan.separate_jobs) {
    std::vector<size_t> all_roles(app.roles.size());
    for (size_t i = 0; i < all_roles.size(); ++i) all_roles[i] = i;
    plan.script =
        job_script(in, all_roles, plan.comment_tag, "attempts", Rank0Source::kOwnFirstNode);
  } else {
    plan.script = job_script(in, {0}, plan.comment_tag, plan.job_file_name("attempts", 0),
                             Rank0Source::kOwnFirstNodeShared);
    for (size_t i = 1; i < app.roles.size(); ++i) {
      DependentJob job;
      job.role = app.roles[i].name;
      job.comment_tag = plan.comment_tag + "/" + job.role;
      job.script = job_script(in, {i}, job.comment_tag, plan.job_file_name("attempts", i),
                              Rank0Source::kSharedByFirstJob);
      job.sbatch_argv = {options.tools.sbatch, "--parsable",
                         plan.job_dir + "/batch-" + job.role + ".sh"};
      plan.dependents.push_back(std::move(job));
    }
  }
  for (size_t i = 0; i < app.roles.size(); ++i) {
    write_task_files(plan, options, app.roles[i], settings[i], world_size);
  }
  return plan;
}

std::vector<std::string> dependent_sbatch_argv(const DependentJob& dependent,
                                               std::string_view first_job) {
  std::vector<std::string> argv = dependent.sbatch_argv;
  argv.insert(argv.begin() + 2, "--dependency=after:" + std::string(first_job));
  return argv;
}

std::string dryrun_text(const BatchPlan& plan) {
  if (plan.dependents.empty()) return plan.script;
  const auto joined = [](const std::vector<std::string>& argv) {
    std::string text;
    for (const std::string& arg : argv) text += (text.empty() ? "" : " ") + arg;
    return text;
  };
  std::string text = "### job 1 of " + std::to_string(plan.job_count()) + ", role " +
                     plan.roles.front().name + ": " + joined(plan.sbatch_argv) + "\n" + plan.script;
  for (size_t i = 0; i < plan.dependents.size(); ++i) {
    const DependentJob& job = plan.dependents[i];
    text += "### job " + std::to_string(i + 2) + " of " + std::to_string(plan.job_count()) +
            ", role " + job.role + ": " + joined(dependent_sbatch_argv(job, "<job 1>")) + "\n" +
            job.script;
  }
  return text;
}

namespace {

std::vector<std::string> string_list(const rapidjson::Value& object, const char* key,
                                     const std::string& what) {
  std::vector<std::string> list;
  if (const rapidjson::Value* array = plugins_common::array_member(object, key, what)) {
    for (const rapidjson::Value& item : array->GetArray()) {
      if (!item.IsString()) throw Error::invalid_argument(what + ": '" + key + "' lists strings");
      list.emplace_back(item.GetString(), item.GetStringLength());
    }
  }
  return list;
}

}  // namespace

std::string write_plan(const BatchPlan& plan) {
  rapidjson::StringBuffer buffer;
  plugins_common::JsonWriter writer(buffer);
  const auto string_field = [&](const char* key, std::string_view value) {
    writer.Key(key);
    plugins_common::write_string(writer, value);
  };
  const auto string_list_field = [&](const char* key, const std::vector<std::string>& values) {
    writer.Key(key);
    writer.StartArray();
    for (const std::string& value : values) plugins_common::write_string(writer, value);
    writer.EndArray();
  };
  writer.StartObject();
  string_field("app_id", plan.app_id);
  string_field("name", plan.name);
  string_field("session", plan.session);
  string_field("job_dir", plan.job_dir);
  string_field("comment_tag", plan.comment_tag);
  string_field("script", plan.script);
  string_list_field("sbatch_argv", plan.sbatch_argv);
  writer.Key("files");
  writer.StartObject();
  for (const auto& [path, content] : plan.files) {
    writer.Key(path.c_str(), static_cast<rapidjson::SizeType>(path.size()));
    plugins_common::write_string(writer, content);
  }
  writer.EndObject();
  writer.Key("roles");
  writer.StartArray();
  for (const RolePlan& role : plan.roles) {
    writer.StartObject();
    string_field("name", role.name);
    writer.Key("replicas");
    writer.Int64(role.replicas);
    writer.EndObject();
  }
  writer.EndArray();
  writer.Key("tools");
  writer.StartObject();
  string_field("sbatch", plan.tools.sbatch);
  string_field("squeue", plan.tools.squeue);
  string_field("sacct", plan.tools.sacct);
  string_field("scancel", plan.tools.scancel);
  string_field("scontrol", plan.tools.scontrol);
  string_field("sinfo", plan.tools.sinfo);
  writer.EndObject();
  if (plan.array_parallelism > 0) {
    writer.Key("array_parallelism");
    writer.Int64(plan.array_parallelism);
  }
  if (plan.separate_jobs) {
    writer.Key("dependents");
    writer.StartArray();
    for (const DependentJob& job : plan.dependents) {
      writer.StartObject();
      string_field("role", job.role);
      string_field("comment_tag", job.comment_tag);
      string_field("script", job.script);
      string_list_field("sbatch_argv", job.sbatch_argv);
      writer.EndObject();
    }
    writer.EndArray();
  }
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

BatchPlan read_plan(std::string_view json) {
  const std::string what = "slurm request";
  const rapidjson::Document document = plugins_common::parse_object(json, what);
  BatchPlan plan;
  plan.app_id = plugins_common::string_member(document, "app_id", what);
  plan.name = plugins_common::string_member(document, "name", what);
  plan.session = plugins_common::string_member(document, "session", what);
  plan.job_dir = plugins_common::string_member(document, "job_dir", what);
  plan.comment_tag = plugins_common::string_member(document, "comment_tag", what);
  plan.script = plugins_common::string_member(document, "script", what);
  plan.sbatch_argv = string_list(document, "sbatch_argv", what);
  if (const rapidjson::Value* files = plugins_common::object_member(document, "files", what)) {
    for (const auto& file : files->GetObject()) {
      plan.files.emplace_back(std::string(file.name.GetString(), file.name.GetStringLength()),
                              std::string(file.value.GetString(), file.value.GetStringLength()));
    }
  }
  if (const rapidjson::Value* roles = plugins_common::array_member(document, "roles", what)) {
    for (const rapidjson::Value& role : roles->GetArray()) {
      plan.roles.push_back({plugins_common::string_member(role, "name", what),
                            plugins_common::int_member(role, "replicas", what, 1)});
    }
  }
  if (const rapidjson::Value* tools = plugins_common::object_member(document, "tools", what)) {
    plan.tools.sbatch = plugins_common::string_member(*tools, "sbatch", what, "sbatch");
    plan.tools.squeue = plugins_common::string_member(*tools, "squeue", what, "squeue");
    plan.tools.sacct = plugins_common::string_member(*tools, "sacct", what, "sacct");
    plan.tools.scancel = plugins_common::string_member(*tools, "scancel", what, "scancel");
    plan.tools.scontrol = plugins_common::string_member(*tools, "scontrol", what, "scontrol");
    plan.tools.sinfo = plugins_common::string_member(*tools, "sinfo", what, "sinfo");
  }
  plan.array_parallelism = plugins_common::int_member(document, "array_parallelism", what, 0);
  if (const rapidjson::Value* dependents =
          plugins_common::array_member(document, "dependents", what)) {
    plan.separate_jobs = true;
    for (const rapidjson::Value& job : dependents->GetArray()) {
      plan.dependents.push_back({plugins_common::string_member(job, "role", what),
                                 plugins_common::string_member(job, "comment_tag", what),
                                 plugins_common::string_member(job, "script", what),
                                 string_list(job, "sbatch_argv", what)});
    }
  }
  if (plan.app_id.empty() || plan.job_dir.empty() || plan.sbatch_argv.empty()) {
    throw Error::invalid_argument(what + ": app_id, job_dir and sbatch_argv are required");
  }
  return plan;
}

}  // namespace sortie::slurm
