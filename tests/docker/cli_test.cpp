// local_docker through the real `sortie` binary, each command a separate process as from another
// shell: run, status, log, list and cancel; cancel leaves no container or network behind; the
// units of a sweep and repeated runs share one workspace image; PyTorch DDP jobs on the
// sortie-test/torch image (packaging/engines/torch_image_up.sh).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../cli/cli_harness.hpp"
#include "docker_test_support.hpp"

namespace sortie::docker::testing {
namespace {

using sortie::testing::CliSandbox;
using sortie::testing::CommandResult;
using sortie::testing::json_string_member;

class DockerCli : public DockerAppFixture {};

std::string spec(const std::string& script, int replicas) {
  return std::string("name: cli\nroles:\n  - name: main\n    image: ") + kTestImage +
         "\n    entrypoint: sh\n    num_replicas: " + std::to_string(replicas) +
         "\n    args: [\"-c\", " + plugins_common::quote(script) + "]\n";
}

std::string handle_of(const std::string& out) {
  const size_t start = out.find("local_docker://");
  return start == std::string::npos ? "" : out.substr(start, out.find('\n', start) - start);
}

// The app ids of every handle in `out`.
std::vector<std::string> app_ids_in(const std::string& out) {
  std::vector<std::string> ids;
  for (size_t at = out.find("local_docker://"); at != std::string::npos;
       at = out.find("local_docker://", at + 1)) {
    const std::string handle = out.substr(at, out.find_first_of(" \n", at) - at);
    ids.push_back(handle.substr(handle.rfind('/') + 1));
  }
  return ids;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// Workspace images built, from the docker image provider's progress on stderr.
size_t workspace_builds(const std::string& err) {
  size_t count = 0;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    count += line.find("building sortie-workspace:") != std::string::npos &&
             line.find(" files) over ") != std::string::npos;
  }
  return count;
}

TEST_F(DockerCli, RunStatusLogFromOtherProcesses) {
  CliSandbox sandbox;
  const std::string file =
      sandbox.write_file("app.yaml", spec("echo replica $SORTIE_REPLICA_ID; exit 0", 2));
  const auto run = sandbox.sortie({"run", "-s", "local_docker", "--wait", "--spec", file});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string handle = handle_of(run.out);
  ASSERT_FALSE(handle.empty()) << run.out;
  apps_.push_back(handle.substr(handle.rfind('/') + 1));

  const auto status = sandbox.sortie({"status", handle, "--json"});
  EXPECT_EQ(json_string_member(status.out, "state"), "SUCCEEDED") << status.out << status.err;
  const auto log = sandbox.sortie({"log", handle});
  EXPECT_NE(log.out.find("main/0 replica 0"), std::string::npos) << log.out << log.err;
  EXPECT_NE(log.out.find("main/1 replica 1"), std::string::npos) << log.out;
  const auto list = sandbox.sortie({"list"});
  EXPECT_NE(list.out.find(handle), std::string::npos) << list.out << list.err;
}

TEST_F(DockerCli, ExitCodeAndBadImageFromTheCli) {
  CliSandbox sandbox;
  const auto failed = sandbox.sortie({"run", "-s", "local_docker", "--wait", "--spec",
                                      sandbox.write_file("f.yaml", spec("exit 7", 1))});
  EXPECT_EQ(failed.exit_code, 1) << failed.out << failed.err;
  const std::string handle = handle_of(failed.out);
  apps_.push_back(handle.substr(handle.rfind('/') + 1));
  const auto status = sandbox.sortie({"status", handle, "--json"});
  EXPECT_NE(status.out.find("\"exit_code\":7"), std::string::npos) << status.out;

  const auto missing =
      sandbox.sortie({"run", "-s", "local_docker", "-cfg", "image_provider=", "--spec",
                      sandbox.write_file("m.yaml",
                                         "name: m\nroles:\n  - name: a\n    "
                                         "image: localhost:5000/sortie-test/"
                                         "none:1\n    entrypoint: true\n")});
  const std::string missing_handle = handle_of(missing.out);
  ASSERT_FALSE(missing_handle.empty()) << missing.out << missing.err;
  apps_.push_back(missing_handle.substr(missing_handle.rfind('/') + 1));
  const std::string final_status = sandbox.wait_terminal(missing_handle);
  EXPECT_EQ(json_string_member(final_status, "state"), "FAILED") << final_status;
  EXPECT_NE(json_string_member(final_status, "msg").find("none"), std::string::npos)
      << final_status;
}

TEST_F(DockerCli, CancelFromAnotherProcessRemovesEverything) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_docker", "-cfg", "cancel_grace_period=2",
                                   "--spec", sandbox.write_file("s.yaml", spec("sleep 300", 2))});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string handle = handle_of(run.out);
  const std::string app_id = handle.substr(handle.rfind('/') + 1);
  apps_.push_back(app_id);
  EXPECT_EQ(container_count(app_id), 2u);
  const auto cancel = sandbox.sortie({"cancel", handle, "--wait"});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out << cancel.err;
  EXPECT_NE(cancel.out.find("CANCELLED"), std::string::npos) << cancel.out;
  EXPECT_EQ(container_count(app_id), 0u);
  Engine engine(docker_socket_from_environment());
  EXPECT_EQ(engine.call("GET", "/networks/sortie-" + app_id).status, 404);
  const auto status = sandbox.sortie({"status", handle, "--json"});
  EXPECT_EQ(json_string_member(status.out, "state"), "CANCELLED") << status.out;
}

TEST_F(DockerCli, SweepUnitsAndRepeatedRunsShareOneWorkspaceImage) {
  CliSandbox sandbox;
  // New content, so that the first unit really builds; sortie's state inside the working
  // directory (examples/experiments/test.sh keeps it there), which each command writes to.
  std::ofstream(sandbox.cwd() + "/marker") << fresh_app_id("marker") << "\n";
  const std::map<std::string, std::string> env = {{"SORTIE_STATE_DIR", sandbox.cwd() + "/state"}};
  const std::string experiment = sandbox.write_file(
      "sweep.yaml", std::string("title: sweep\nexecutables:\n  shell: {container: ") + kTestImage +
                        "}\njob:\n  executable: shell\n  args: [sh, -c, 'cat marker']\n"
                        "sweep:\n  product: {lr: [1, 2, 3]}\n");
  const auto launch = sandbox.sortie({"launch", experiment, "--wait"}, env);
  for (const std::string& id : app_ids_in(launch.out)) apps_.push_back(id);
  ASSERT_EQ(launch.exit_code, 0) << launch.out << launch.err;
  EXPECT_EQ(apps_.size(), 3u) << launch.out;
  EXPECT_EQ(workspace_builds(launch.err), 1u) << launch.err;
  EXPECT_EQ(count_of(launch.err, "unchanged: reusing sortie-workspace:"), 2u) << launch.err;

  // Another run of the unchanged directory reuses the image; a changed file builds a new one.
  const std::string app = sandbox.write_file("app.yaml", spec("cat marker", 1));
  const auto again = sandbox.sortie({"run", "-s", "local_docker", "--dryrun", "--spec", app}, env);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(workspace_builds(again.err), 0u) << again.err;
  EXPECT_EQ(count_of(again.err, "unchanged: reusing sortie-workspace:"), 1u) << again.err;
  std::ofstream(sandbox.cwd() + "/marker") << "changed " << fresh_app_id("marker") << "\n";
  const auto changed =
      sandbox.sortie({"run", "-s", "local_docker", "--dryrun", "--spec", app}, env);
  EXPECT_EQ(changed.exit_code, 0) << changed.out << changed.err;
  EXPECT_EQ(workspace_builds(changed.err), 1u) << changed.err;
}

// examples/pytorch/train.py run by torchrun on sortie-test/torch:1.13, the script reaching the
// containers the TorchX way: the working directory laid over the image (its WORKDIR).
class DockerDdp : public DockerCli {
 protected:
  static constexpr const char* kTorchImage = "sortie-test/torch:1.13";

  void SetUp() override {
    DockerCli::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    Engine engine(docker_socket_from_environment());
    if (!image_exists(engine, kTorchImage)) {
      if (in_ci()) FAIL() << "CI=true and " << kTorchImage << " is missing";
      GTEST_SKIP() << kTorchImage << " is missing (run packaging/engines/torch_image_up.sh)";
    }
  }

  // An app of `nodes` containers of `procs` processes each training with `lr`, its spec written
  // in `sandbox` beside a copy of train.py.
  static std::string ddp_spec(const CliSandbox& sandbox, int nodes, int procs,
                              const std::string& lr) {
    std::filesystem::create_directories(sandbox.cwd() + "/examples/pytorch");
    std::filesystem::copy_file(SORTIE_TEST_SOURCE_DIR "/../../examples/pytorch/train.py",
                               sandbox.cwd() + "/examples/pytorch/train.py",
                               std::filesystem::copy_options::skip_existing);
    return sandbox.write_file(
        "ddp-" + lr + ".yaml",
        std::string("name: ddp\nroles:\n  - name: trainer\n    image: ") + kTorchImage +
            "\n    entrypoint: python3\n    num_replicas: " + std::to_string(nodes) +
            "\n    env: {PET_MONITOR_INTERVAL: '0.5'}"
            "\n    args: [-m, torch.distributed.run, --nnodes, '" +
            std::to_string(nodes) + "', --nproc_per_node, '" + std::to_string(procs) +
            "', --rdzv_backend, c10d, --rdzv_endpoint, '${rank0_host}:${free_port}', "
            "--rdzv_id, '${app_id}', --redirects, '1', --tee, '1', --role, '', "
            "examples/pytorch/train.py, --lr, '" +
            lr + "']\n");
  }

  // Checks the app `run` started SUCCEEDED and returns its handle.
  std::string succeeded(const CliSandbox& sandbox, const CommandResult& run) {
    const std::string handle = handle_of(run.out);
    if (!handle.empty()) apps_.push_back(handle.substr(handle.rfind('/') + 1));
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto status = sandbox.sortie({"status", handle, "--json"});
    EXPECT_EQ(json_string_member(status.out, "state"), "SUCCEEDED") << status.out << status.err;
    return handle;
  }

  // Runs `nodes` containers of `procs` processes each with --lr 0.05 and returns the output.
  std::string run_ddp(int nodes, int procs) {
    CliSandbox sandbox;
    const auto run = sandbox.sortie({"run", "-s", "local_docker", "--wait", "--log", "--spec",
                                     ddp_spec(sandbox, nodes, procs, "0.05")});
    succeeded(sandbox, run);
    return run.out;
  }
};

TEST_F(DockerDdp, OneContainerOfTwoProcessesReachesTheKnownLoss) {
  const std::string out = run_ddp(1, 2);
  EXPECT_NE(out.find("final_loss=0.296632"), std::string::npos) << out;
}

TEST_F(DockerDdp, TwoContainersOfOneProcessReachTheKnownLoss) {
  const std::string out = run_ddp(2, 1);
  EXPECT_NE(out.find("final_loss=0.296632"), std::string::npos) << out;
}

// Issue 31: three apps of one directory at once, as three shells would start them, each with its
// own learning rate: none resumes from another's checkpoint (train.py keeps it in the app's own
// /sortie/output) and each ends with its own known loss.
TEST_F(DockerDdp, ThreeAppsAtOnceFromOneDirectoryEachReachTheirOwnLoss) {
  CliSandbox sandbox;
  const std::map<std::string, std::string> known = {
      {"0.01", "0.156684"}, {"0.05", "0.296632"}, {"0.1", "0.919923"}};
  std::vector<std::vector<std::string>> commands;
  for (const auto& [lr, loss] : known) {
    commands.push_back(
        {"run", "-s", "local_docker", "--wait", "--log", "--spec", ddp_spec(sandbox, 1, 2, lr)});
  }
  // A stale checkpoint where the script runs: copied into each workspace image, never read.
  std::ofstream(sandbox.cwd() + "/examples/pytorch/ckpt.pt") << "stale";
  const std::vector<CommandResult> runs = sandbox.sortie_concurrently(commands);
  auto lr = known.begin();
  for (const CommandResult& run : runs) {
    succeeded(sandbox, run);
    EXPECT_NE(run.out.find("final_loss=" + lr->second), std::string::npos)
        << "lr " << lr->first << ":\n"
        << run.out;
    ++lr;
  }
}

}  // namespace
}  // namespace sortie::docker::testing
