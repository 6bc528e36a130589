// local_docker through the real `sortie` binary, each command a separate process as from another
// shell: run, status, log, list and cancel; cancel leaves no container or network behind.
#include <gtest/gtest.h>

#include "../cli/cli_harness.hpp"
#include "docker_test_support.hpp"

namespace sortie::docker::testing {
namespace {

using sortie::testing::CliSandbox;
using sortie::testing::json_string_member;

class DockerCli : public DockerAppFixture {};

std::string spec(const std::string& script, int replicas) {
  return std::string("name: cli\nroles:\n  - name: main\n    image: ") + kTestImage +
         "\n    entrypoint: sh\n    num_replicas: " + std::to_string(replicas) +
         "\n    args: [\"-c\", " + quote(script) + "]\n";
}

std::string handle_of(const std::string& out) {
  const size_t start = out.find("local_docker://");
  return start == std::string::npos ? "" : out.substr(start, out.find('\n', start) - start);
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
  const auto cancel = sandbox.sortie({"cancel", handle});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out << cancel.err;
  EXPECT_NE(cancel.out.find("CANCELLED"), std::string::npos) << cancel.out;
  EXPECT_EQ(container_count(app_id), 0u);
  Engine engine(docker_socket_from_environment());
  EXPECT_EQ(engine.call("GET", "/networks/sortie-" + app_id).status, 404);
  const auto status = sandbox.sortie({"status", handle, "--json"});
  EXPECT_EQ(json_string_member(status.out, "state"), "CANCELLED") << status.out;
}

}  // namespace
}  // namespace sortie::docker::testing
