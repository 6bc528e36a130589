// The batch plan without a cluster: the script's directives per mapping rule, names validated
// for Slurm, refusals that name the field, and the container forms against golden files
// (golden/*.sh; regenerate with SORTIE_UPDATE_GOLDEN=1 after an intended change).
#include "batch_plan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sortie/dryrun_input.hpp>
#include <sortie/error.hpp>
#include <sstream>

#include "run_options.hpp"

namespace sortie::slurm {
namespace {

using namespace std::string_literals;

bool memory_consumable(const SlurmTools&) { return true; }
bool memory_not_consumable(const SlurmTools&) { return false; }
int64_t two_nodes(const SlurmTools&, const std::string&) { return 2; }
int64_t one_node(const SlurmTools&, const std::string&) { return 1; }

DryrunInput input(const std::string& roles_json, const std::string& name = "train") {
  return read_dryrun_input(
      R"({"schema":"sortie.dryrun_input/1","app_id":")" + name +
      R"(-x1","session":"s","cfg":{},"app":{"schema":"sortie.appdef/1","name":")" + name +
      R"(","roles":[)" + roles_json + "]}}");
}

SlurmOptions options(const std::string& cfg = "{}") {
  SlurmOptions parsed = parse_run_options(cfg, "/state");
  parsed.workdir = "/work/dir";
  return parsed;
}

BatchPlan plan(const DryrunInput& in, const SlurmOptions& opts,
               ClusterQuestions cluster = {memory_not_consumable, two_nodes}) {
  return plan_batch(in, opts, "/opt/sortie/libexec/sortie/sortie-slurm-task", cluster);
}

std::string file_of(const BatchPlan& p, const std::string& path) {
  for (const auto& [name, content] : p.files) {
    if (name == path) return content;
  }
  return "<missing " + path + ">";
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(SLURM_GOLDEN_DIR) + "/" + name;
  if (std::getenv("SORTIE_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << actual;
  std::ifstream in(path);
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden file " << path;
}

TEST(SlurmBatchPlan, OneRoleIsOneJobWithATaskPerReplica) {
  const BatchPlan p = plan(
      input(
          R"({"name":"main","entrypoint":"python","num_replicas":4,"resource":{"cpu":1.5,"memMB":3000,"gpu":1}})"),
      options(), {memory_consumable, two_nodes});
  EXPECT_NE(
      p.script.find("#SBATCH --ntasks=4\n#SBATCH --cpus-per-task=2\n#SBATCH --mem-per-cpu=1500\n"
                    "#SBATCH --gpus-per-task=1\n"),
      std::string::npos)
      << p.script;
  EXPECT_EQ(p.script.find("hetjob"), std::string::npos);
  EXPECT_EQ(p.sbatch_argv,
            (std::vector<std::string>{"sbatch", "--parsable", "/state/jobs/train-x1/batch.sh"}));
  EXPECT_EQ(p.roles.size(), 1u);
  EXPECT_EQ(file_of(p, "tasks/main/3.argv"), std::string("python\0", 7));
}

TEST(SlurmBatchPlan, MemoryIsDroppedWithAWarningWhereItIsNotConsumable) {
  const BatchPlan p =
      plan(input(R"({"name":"main","entrypoint":"python","resource":{"memMB":3000}})"), options());
  EXPECT_EQ(p.script.find("--mem"), std::string::npos);
  EXPECT_NE(p.script.find("# sortie: resource.memMB=3000 dropped: memory is not a consumable"),
            std::string::npos);
}

TEST(SlurmBatchPlan, SeveralRolesAreOneHeterogeneousJob) {
  const BatchPlan p =
      plan(input(R"({"name":"ps","entrypoint":"a","resource":{"cpu":1}},)"
                 R"({"name":"worker","entrypoint":"b","num_replicas":2,"resource":{"cpu":2}})"),
           options(R"({"partition":"debug"})"));
  EXPECT_NE(p.script.find("# role ps\n#SBATCH --ntasks=1\n#SBATCH --partition=debug\n#SBATCH "
                          "--cpus-per-task=1\n#SBATCH hetjob\n# role worker\n#SBATCH --ntasks=2\n"),
            std::string::npos)
      << p.script;
  EXPECT_NE(p.script.find("srun --het-group=1 --ntasks=2 --cpus-per-task=2"), std::string::npos);
  EXPECT_NE(file_of(p, "tasks/worker/1.env").find(std::string("SORTIE_WORLD_SIZE=3\0", 20)),
            std::string::npos);
}

TEST(SlurmBatchPlan, AHeterogeneousJobThatCannotBePlacedIsADryrunError) {
  try {
    plan(input(R"({"name":"a","entrypoint":"a"},{"name":"b","entrypoint":"b"})"), options(),
         {memory_not_consumable, one_node});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Error::failed_precondition("").code());
    EXPECT_NE(std::string(e.what()).find("needs a node per role"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1 usable node"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("run option role_jobs=separate"), std::string::npos)
        << e.what();
  }
}

TEST(SlurmBatchPlan, SeparateRoleJobsAreAJobPerRoleTiedToTheFirstByADependency) {
  // One usable node is enough: separate jobs need no node per role.
  const BatchPlan p =
      plan(input(R"({"name":"ps","entrypoint":"a","max_retries":1},)"
                 R"({"name":"worker","entrypoint":"b","num_replicas":2})"),
           options(R"({"role_jobs":"separate"})"), {memory_not_consumable, one_node});
  ASSERT_EQ(p.job_count(), 2u);
  EXPECT_EQ(p.job_of_role(1), 1u);
  EXPECT_EQ(p.job_file_name("attempts", 1), "attempts-worker");
  const DependentJob& worker = p.dependents[0];
  EXPECT_EQ(worker.role, "worker");
  for (const std::string* script : {&p.script, &worker.script}) {
    EXPECT_EQ(script->find("hetjob"), std::string::npos) << *script;
    EXPECT_EQ(script->find("--het-group"), std::string::npos) << *script;
  }
  EXPECT_NE(p.script.find("#SBATCH --comment=sortie-app=train-x1\n"), std::string::npos);
  EXPECT_NE(p.script.find("# role ps\n#SBATCH --ntasks=1\n"), std::string::npos) << p.script;
  EXPECT_EQ(p.script.find("# role worker"), std::string::npos);
  EXPECT_NE(p.script.find("ledger=\"$job_dir/attempts-ps\"\nmax_failures=1 "), std::string::npos);
  EXPECT_NE(p.script.find(">\"$job_dir/rank0_host.tmp\""), std::string::npos);  // shares its host
  EXPECT_NE(worker.script.find("#SBATCH --comment=sortie-app=train-x1/worker\n"),
            std::string::npos);
  EXPECT_NE(worker.script.find("# role worker\n#SBATCH --ntasks=2\n"), std::string::npos)
      << worker.script;
  EXPECT_NE(worker.script.find("ledger=\"$job_dir/attempts-worker\"\nmax_failures=0 "),
            std::string::npos);
  EXPECT_NE(worker.script.find("first_node=$(<\"$job_dir/rank0_host\")"), std::string::npos);
  EXPECT_EQ(dependent_sbatch_argv(worker, "42"),
            (std::vector<std::string>{"sbatch", "--parsable", "--dependency=after:42",
                                      "/state/jobs/train-x1/batch-worker.sh"}));
  EXPECT_EQ(dryrun_text(p),
            "### job 1 of 2, role ps: sbatch --parsable "
            "/state/jobs/train-x1/batch.sh\n" +
                p.script +
                "### job 2 of 2, role worker: sbatch --parsable "
                "--dependency=after:<job 1> /state/jobs/train-x1/batch-worker.sh\n" +
                worker.script);
  // The request carries every job unchanged to schedule.
  const BatchPlan read = read_plan(write_plan(p));
  ASSERT_EQ(read.dependents.size(), 1u);
  EXPECT_TRUE(read.separate_jobs);
  EXPECT_EQ(read.dependents[0].script, worker.script);
  EXPECT_EQ(read.dependents[0].comment_tag, worker.comment_tag);
  EXPECT_EQ(read.dependents[0].sbatch_argv, worker.sbatch_argv);
  EXPECT_EQ(dryrun_text(read), dryrun_text(p));
  EXPECT_THROW(options(R"({"role_jobs":"apart"})"), Error);
}

TEST(SlurmBatchPlan, NamesAndDirectiveValuesAreValidatedForSlurm) {
  EXPECT_THROW(plan(input(R"({"name":"a b","entrypoint":"a"})"), options()), Error);
  EXPECT_THROW(plan(input(R"({"name":"a","entrypoint":"a"})", "bad/name"), options()), Error);
  EXPECT_THROW(plan(input(R"({"name":"a","entrypoint":"a"})"), options(R"({"qos":"a b"})")), Error);
  EXPECT_THROW(options(R"({"sbatch_lines":["--a\n--b"]})"), Error);
  EXPECT_THROW(options(R"({"no_such_option":1})"), Error);
  EXPECT_THROW(options(R"({"max_timeouts":1})"), Error);  // needs a time limit
  EXPECT_THROW(plan(input(R"({"name":"a","entrypoint":"a","port_map":{"p":1}})"), options()),
               Error);
}

TEST(SlurmBatchPlan, RunOptionsBecomeDirectivesAndExtraLinesFollowThem) {
  const BatchPlan p = plan(
      input(
          R"({"name":"a","entrypoint":"a","resource":{"capabilities":{"slurm.gres":"shard:2"},"devices":{"gpu:a100":1}}})"),
      options(
          R"({"time":"10:00","account":"acct","qos":"high","constraint":"fast","exclusive":true,)"
          R"("mail_user":"me@example.com","mail_type":"END","comment":"note","max_timeouts":1,)"
          R"("signal_lead":30,"sbatch_lines":["--nice=5"]})"));
  for (const char* line :
       {"#SBATCH --time=10:00\n#SBATCH --signal=B:USR1@30\n#SBATCH --account=acct\n"
        "#SBATCH --qos=high\n#SBATCH --mail-user=me@example.com\n#SBATCH --mail-type=END\n"
        "#SBATCH --nice=5\n",
        "#SBATCH --comment=sortie-app=train-x1,note\n", "#SBATCH --constraint=fast\n",
        "#SBATCH --exclusive\n", "#SBATCH --gres=shard:2\n#SBATCH --gres=gpu:a100:1\n"}) {
    EXPECT_NE(p.script.find(line), std::string::npos) << line << "\n" << p.script;
  }
}

// Issue: the builtin components' image "." became `docker run ... .` (exit 125). No image, or
// ".", runs on the host; an absolute directory is where the replicas start (TorchX's slurm
// reading); anything else that cannot work is a dryrun error naming the role and field.
TEST(SlurmBatchPlan, NoImageRunsOnTheHostAndADirectoryImageIsWhereReplicasStart) {
  const auto argv_of = [](const std::string& image) {
    const BatchPlan p = plan(input(R"({"name":"main","image":")" + image +
                                   R"(","entrypoint":"python","args":["${img_root}/t.py"]})"),
                             options());
    EXPECT_EQ(p.script.find("--chdir='"), std::string::npos) << p.script;
    return file_of(p, "tasks/main/0.argv");
  };
  EXPECT_EQ(argv_of(""), "python\0/work/dir/t.py\0"s);
  EXPECT_EQ(argv_of("."), "python\0/work/dir/t.py\0"s);
  EXPECT_EQ(argv_of("python:3.11").rfind("docker\0run\0", 0), 0u);

  const std::string dir = ::testing::TempDir() + "slurm-image-dir";
  std::filesystem::create_directories(dir);
  const BatchPlan p = plan(input(R"({"name":"main","image":")" + dir +
                                 R"(","entrypoint":"python","args":["${img_root}/t.py"]},)"
                                 R"({"name":"side","image":".","entrypoint":"sh"})"),
                           options());
  EXPECT_EQ(file_of(p, "tasks/main/0.argv"), "python\0"s + dir + "/t.py\0"s);
  EXPECT_NE(p.script.find("srun --het-group=0 --ntasks=1 --cpus-per-task=1 --kill-on-bad-exit=0 "
                          "--chdir='" +
                          dir + "' \"$task\""),
            std::string::npos)
      << p.script;
  EXPECT_NE(p.script.find("srun --het-group=1 --ntasks=1 --cpus-per-task=1 --kill-on-bad-exit=0 "
                          "\"$task\""),
            std::string::npos)
      << p.script;

  for (const auto& [image, words] :
       {std::pair<std::string, std::string>{"/no/such/dir",
                                            "roles[0].image '/no/such/dir' is not "
                                            "a directory on this host"},
        {"./sub", "roles[0].image './sub' is a relative path"}}) {
    try {
      plan(input(R"({"name":"main","image":")" + image + R"(","entrypoint":"python"})"), options());
      ADD_FAILURE() << image << ": expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Error::invalid_argument("").code());
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
}

// Multi-node DDP: each replica is a torchrun agent that starts its own processes, so the role
// asks for one task per node (role metadata slurm.ntasks_per_node).
TEST(SlurmBatchPlan, TasksPerNodeSpreadsARolesReplicasOverNodes) {
  const auto role = [](int replicas, const std::string& metadata) {
    return R"({"name":"trainer","entrypoint":"python","num_replicas":)" + std::to_string(replicas) +
           R"(,"metadata":)" + metadata + "}";
  };
  BatchPlan p =
      plan(input(role(2, R"({"slurm.ntasks_per_node":1,"vertex.other":"x"})")), options());
  EXPECT_NE(p.script.find("#SBATCH --ntasks=2\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"),
            std::string::npos)
      << p.script;
  EXPECT_NE(p.script.find("  srun --ntasks=2 --nodes=2 --ntasks-per-node=1 --cpus-per-task=1 "),
            std::string::npos)
      << p.script;
  p = plan(
      input(role(5, R"({"slurm.ntasks_per_node":2})")), options(),
      {memory_not_consumable, [](const SlurmTools&, const std::string&) -> int64_t { return 3; }});
  EXPECT_NE(p.script.find("#SBATCH --ntasks=5\n#SBATCH --nodes=3\n#SBATCH --ntasks-per-node=2\n"),
            std::string::npos)
      << p.script;
  p = plan(input(role(2, "{}")), options());
  EXPECT_EQ(p.script.find("--nodes"), std::string::npos) << p.script;

  const auto error_of = [](const DryrunInput& in, ClusterQuestions cluster) {
    try {
      plan(in, options(), cluster);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  const ClusterQuestions two = {memory_not_consumable, two_nodes};
  EXPECT_NE(error_of(input(role(2, R"({"slurm.nodes":2})")), two)
                .find("roles[0].metadata key 'slurm.nodes' is not supported by slurm; it knows "
                      "slurm.ntasks_per_node"),
            std::string::npos);
  for (const char* bad : {"0", "\"1\"", "1.5"}) {
    EXPECT_NE(error_of(input(role(2, std::string(R"({"slurm.ntasks_per_node":)") + bad + "}")), two)
                  .find("roles[0].metadata 'slurm.ntasks_per_node' is " + std::string(bad) +
                        "; it must be an integer of at least 1"),
              std::string::npos)
        << bad;
  }
  // Nodes the partition lacks: a dryrun error, not a job pending for ever.
  EXPECT_NE(
      error_of(input(role(2, R"({"slurm.ntasks_per_node":1})")), {memory_not_consumable, one_node})
          .find("roles[0] (trainer) has 2 replicas at slurm.ntasks_per_node=1, which need 2 "
                "nodes, but partition (default) has 1 usable node(s)"),
      std::string::npos);
  // A heterogeneous job's components do not share nodes: 2 + 1 nodes.
  EXPECT_NE(error_of(input(role(2, R"({"slurm.ntasks_per_node":1})") +
                           R"(,{"name":"ps","entrypoint":"a"})"),
                     two)
                .find("2 roles run as one heterogeneous job, which needs a node per role (3 with "
                      "the roles' slurm.ntasks_per_node), but partition (default) has 2 usable "
                      "node(s)"),
            std::string::npos);
}

TEST(SlurmBatchPlan, GpusArePerTaskOnTheJobAndOnTheStep) {
  const BatchPlan p = plan(input(R"({"name":"ps","entrypoint":"a"},)"
                                 R"({"name":"worker","entrypoint":"b","num_replicas":2,)"
                                 R"("resource":{"cpu":4,"gpu":2}})"),
                           options());
  EXPECT_NE(p.script.find("# role worker\n#SBATCH --ntasks=2\n#SBATCH --cpus-per-task=4\n"
                          "#SBATCH --gpus-per-task=2\n"),
            std::string::npos)
      << p.script;
  EXPECT_NE(p.script.find("srun --het-group=1 --ntasks=2 --cpus-per-task=4 --gpus-per-task=2 "
                          "--kill-on-bad-exit=0 "),
            std::string::npos)
      << p.script;
  EXPECT_NE(p.script.find("srun --het-group=0 --ntasks=1 --cpus-per-task=1 --kill-on-bad-exit=0 "),
            std::string::npos)
      << p.script;
}

// ${free_port} (docs/payloads.md P-12.1): chosen for each attempt on the first node of the job
// that runs the first role, and handed to every other role's job through the job directory.
TEST(SlurmBatchPlan, FreePortIsChosenOnTheRank0HostForEveryAttempt) {
  const std::string roles =
      R"({"name":"ps","entrypoint":"a","args":["${rank0_host}:${free_port}"],)"
      R"("env":{"PORT":"${free_port}"}},{"name":"worker","entrypoint":"b"})";
  const std::string choose =
      "while :; do\n  SORTIE_FREE_PORT=$(\"$task\" --free-port) || exit 1\n"
      "  export SORTIE_FREE_PORT\n";
  const BatchPlan het = plan(input(roles), options());
  EXPECT_NE(het.script.find(choose + "  attempt=$(count '^start ')\n"), std::string::npos)
      << het.script;
  // Left for the task, which replaces them once the job has started.
  EXPECT_EQ(file_of(het, "tasks/ps/0.argv"), "a\0${rank0_host}:${free_port}\0"s);
  EXPECT_NE(file_of(het, "tasks/ps/0.env").find("PORT=${free_port}\0"s), std::string::npos);

  const BatchPlan apart = plan(input(roles), options(R"({"role_jobs":"separate"})"));
  EXPECT_NE(apart.script.find(choose +
                              "  echo \"$SORTIE_FREE_PORT\" >\"$job_dir/free_port.tmp\" && mv -f "
                              "\"$job_dir/free_port.tmp\" \"$job_dir/free_port\"\n"),
            std::string::npos)
      << apart.script;
  const std::string& worker = apart.dependents.at(0).script;
  EXPECT_NE(worker.find("until [[ -s $job_dir/rank0_host && -s $job_dir/free_port ]]; do\n"),
            std::string::npos)
      << worker;
  EXPECT_NE(worker.find("while :; do\n  export SORTIE_FREE_PORT=$(<\"$job_dir/free_port\")\n"),
            std::string::npos)
      << worker;
  EXPECT_EQ(worker.find("--free-port"), std::string::npos);
}

TEST(SlurmBatchPlan, TheOutputDirIsGivenAsItIsAndMountedIntoContainers) {
  DryrunInput in = input(R"({"name":"main","entrypoint":"python","args":["${output_dir}/c"]})");
  in.app.output_dir = "/shared/out/train-x1";
  const BatchPlan host = plan(in, options());
  EXPECT_EQ(file_of(host, "tasks/main/0.argv"), "python\0/shared/out/train-x1/c\0"s);
  EXPECT_NE(file_of(host, "tasks/main/0.env").find("SORTIE_OUTPUT_DIR=/shared/out/train-x1\0"s),
            std::string::npos);
  in.app.roles[0].image = "registry.local/train:1";
  const std::string docker = file_of(plan(in, options()), "tasks/main/0.argv");
  EXPECT_NE(docker.find("-v\0/shared/out/train-x1:/shared/out/train-x1\0"s), std::string::npos);
  const std::string apptainer =
      file_of(plan(in, options(R"({"container":"apptainer"})")), "tasks/main/0.argv");
  EXPECT_NE(apptainer.find("--bind\0/shared/out/train-x1\0"s), std::string::npos);
  EXPECT_NE(plan(in, options(R"({"container":"pyxis"})"))
                .script.find("--container-mounts='/work/dir,/state/jobs/train-x1,"
                             "/shared/out/train-x1'"),
            std::string::npos);
}

TEST(SlurmBatchPlan, ContainerFormsMatchTheirGoldenFiles) {
  const std::string role =
      R"({"name":"main","image":"registry.local/train:1","entrypoint":"python","args":["-m","t"],"env":{"K":"v"}})";
  for (const char* runtime : {"docker", "pyxis", "apptainer"}) {
    const BatchPlan p =
        plan(input(role), options(std::string(R"({"container":")") + runtime + "\"}"));
    std::string argv = file_of(p, "tasks/main/0.argv");
    for (char& c : argv) c = c == '\0' ? '\n' : c;
    expect_golden(std::string(runtime) + ".sh",
                  p.script + "# tasks/main/0.argv, one entry a line:\n" + argv);
  }
}

}  // namespace
}  // namespace sortie::slurm
