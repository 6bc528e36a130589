// What a user meets on the documented paths: `-h` is a component's named resource, `sortie run
// FILE` runs a spec file, every example spec runs where its header says, and the smaller
// promises of list, experiments, launch and plugins list.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

const std::string kExamples = std::string(SORTIE_TEST_SOURCE_DIR) + "/../../examples/specs/";

size_t count_lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CliBehaviour, DashHIsTheNamedResourceOfAComponent) {
  CliSandbox sandbox;
  for (const std::vector<std::string>& component :
       {std::vector<std::string>{"utils.sh", "-h", "gpu.small", "echo hi"},
        std::vector<std::string>{"dist.spmd", "-h", "gpu.small", "-j", "2", "echo", "hi"}}) {
    std::vector<std::string> command{"run", "-s", "local_cwd", "--dryrun"};
    command.insert(command.end(), component.begin(), component.end());
    const auto run = sandbox.sortie(command);
    ASSERT_EQ(run.exit_code, 0) << component[0] << ": " << run.err;
    EXPECT_EQ(run.out.find("usage: sortie run"), std::string::npos) << run.out;
    // gpu.small, as TorchX defines it: 8 cpu, 1 gpu, 32 GiB.
    EXPECT_NE(run.out.find(R"("resource":{"cpu":8,"gpu":1,"memMB":32768)"), std::string::npos)
        << component[0] << ": " << run.out;
  }
  const auto help = sandbox.sortie({"run", "-s", "local_cwd", "utils.sh", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("-h str"), std::string::npos) << help.out;
  const auto no_value = sandbox.sortie({"run", "-s", "local_cwd", "utils.sh", "-h"});
  EXPECT_EQ(no_value.exit_code, 2);
  EXPECT_NE(no_value.err.find("option -h needs a value"), std::string::npos) << no_value.err;
  // A component without a parameter h keeps -h as its help.
  const auto echo_help = sandbox.sortie({"run", "-s", "local_cwd", "utils.echo", "-h"});
  EXPECT_EQ(echo_help.exit_code, 0) << echo_help.err;
  EXPECT_NE(echo_help.out.find("usage: sortie run utils.echo"), std::string::npos) << echo_help.out;
}

TEST(CliBehaviour, UiRunsTheWholeCommandLineAgainInItsHelper) {
  // `sortie ui` is served by libexec/sortie/sortie-ui: the global options before the command and
  // the options after it reach it unchanged (the port here is refused by the dashboard's own
  // option checks, which only the helper has).
  CliSandbox sandbox;
  const auto ui = sandbox.sortie({"--session", "elsewhere", "-q", "ui", "--port", "70000"});
  EXPECT_EQ(ui.exit_code, 2) << ui.err;
  EXPECT_NE(ui.err.find("sortie ui: error: --port 70000 is not a TCP port"), std::string::npos)
      << ui.err;
  const auto help = sandbox.sortie({"ui", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("usage: sortie ui [--port N]"), std::string::npos) << help.out;
}

TEST(CliBehaviour, RunFileRunsASpecFile) {
  CliSandbox sandbox;
  sandbox.write_file("cwd/hello.yml",
                     "name: hello\nroles:\n  - name: main\n    entrypoint: true\n");
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "hello.yml"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(first_line(run.out).find("local_cwd://default/hello-"), std::string::npos) << run.out;
  const auto extra = sandbox.sortie({"run", "-s", "local_cwd", "hello.yml", "more"});
  EXPECT_EQ(extra.exit_code, 2);
  EXPECT_NE(extra.err.find("takes no arguments"), std::string::npos) << extra.err;

  // A file of another kind is not taken for a spec, but the error points at --spec.
  sandbox.write_file("cwd/hello.spec", "name: hello\n");
  const auto other = sandbox.sortie({"run", "-s", "local_cwd", "hello.spec"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("unknown component 'hello.spec'"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("sortie run --spec hello.spec"), std::string::npos) << other.err;
}

// Each example spec and the command its header (or the README) gives; every file of
// examples/specs/ must be here. The container and cloud ones are dry runs (no engine, no cloud).
TEST(CliBehaviour, EveryExampleSpecRunsWhereItsHeaderSays) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> examples = {
      {"echo.yaml", {"run", "-s", "local_cwd", "--wait"}},
      {"three_roles.yaml", {"run", "--wait", "--spec"}},
      {"trainer.json", {"run", "--wait", "--spec"}},
      {"docker_two_roles.yaml", {"run", "-s", "local_docker", "--dryrun", "--spec"}},
      {"docker_measured.yaml", {"run", "-s", "local_docker", "--dryrun", "--spec"}},
      {"k8s_distributed.yaml",
       {"run", "-s", "kubernetes", "--dryrun", "-cfg", "namespace=ml", "--spec"}},
      {"vertex_distributed.yaml",
       {"run", "-s", "vertex", "-cfg", "project=my-project,location=us-central1", "--dryrun",
        "--spec"}},
      {"vertex_tpu.yaml",
       {"run", "-s", "vertex", "-cfg", "project=my-project,location=europe-west4", "--dryrun",
        "--spec"}},
  };
  std::set<std::string> covered;
  CliSandbox sandbox;
  for (const auto& [file, args] : examples) {
    covered.insert(file);
    std::vector<std::string> command = args;
    command.push_back(kExamples + file);
    const auto run = sandbox.sortie(command);
    EXPECT_EQ(run.exit_code, 0) << file << ": " << run.err;
  }
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    EXPECT_EQ(covered.count(entry.path().filename().string()), 1u)
        << entry.path() << " is not run by this test";
  }
}

TEST(CliBehaviour, ListLimitBoundsTheSchedulersOwnAppsToo) {
  CliSandbox sandbox;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(sandbox.sortie({"run", "-s", "local_cwd", "--", "true"}).exit_code, 0);
  }
  const auto all = sandbox.sortie({"list", "-s", "local_cwd"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(count_lines(all.out), 1u + 3u) << all.out;
  const auto two = sandbox.sortie({"list", "-s", "local_cwd", "--limit", "2"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(count_lines(two.out), 1u + 2u) << two.out;
}

class CliLaunchTest : public ::testing::Test {
 protected:
  // An experiment of `units` work units of a job that succeeds at once.
  std::string experiment_file(int units) {
    const std::string script = sandbox_.write_file("ok.sh", "#!/bin/sh\nexit 0\n");
    ::chmod(script.c_str(), 0755);
    std::string file =
        "title: quick\nexecutables:\n  ok: {binary: ./ok.sh}\n"
        "job: {executable: ok, name: ok}\nwork_units:\n";
    for (int i = 0; i < units; ++i) file += "  - {args: {n: " + std::to_string(i) + "}}\n";
    return sandbox_.write_file("quick.yaml", file);
  }
  CliSandbox sandbox_;
};

TEST_F(CliLaunchTest, ExperimentsListShowsFinishedExperimentsAsFinished) {
  ASSERT_EQ(sandbox_.sortie({"launch", experiment_file(2)}).exit_code, 0);
  // Only `experiments list` looks: nothing else refreshes the store meanwhile.
  std::string listed;
  for (int i = 0; i < 200 && listed.find("SUCCEEDED") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    listed = sandbox_.sortie({"experiments", "list"}).out;
  }
  EXPECT_TRUE(std::regex_search(listed, std::regex(R"(\n1 +quick +2 +.* 2 SUCCEEDED *\n)")))
      << listed;
}

TEST_F(CliLaunchTest, AClosedStdoutDoesNotStopALaunchHalfway) {
  const std::string file = experiment_file(3);
  const std::string command =
      "cd '" + sandbox_.root() + "/cwd' && env -u SORTIE_PLUGIN_PATH -u SORTIE_CONFIG " +
      "SORTIE_STATE_DIR='" + sandbox_.root() + "/state' HOME='" + sandbox_.root() +
      "/home' PATH='" + SORTIE_TEST_PREFIX + "/bin:/usr/bin:/bin' sortie launch '" + file +
      "' 2>'" + sandbox_.root() + "/launch.err' | head -1 >'" + sandbox_.root() + "/launch.out'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const auto shown = sandbox_.sortie({"experiments", "show", "1"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("work unit 3:"), std::string::npos) << shown.out;
  std::ifstream in(sandbox_.root() + "/launch.err");
  const std::string launch_err((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
  EXPECT_NE(launch_err.find("writing to stdout failed (Broken pipe)"), std::string::npos)
      << launch_err;
}

TEST_F(CliLaunchTest, AnExperimentThatFailsToPackageLeavesNoRecord) {
  const std::string file =
      sandbox_.write_file("broken.yaml",
                          "title: broken\nexecutables:\n  gone: {binary: ./missing.sh}\n"
                          "job: {executable: gone}\n");
  const auto launch = sandbox_.sortie({"launch", file});
  EXPECT_EQ(launch.exit_code, 2) << launch.err;
  EXPECT_NE(launch.err.find("missing.sh"), std::string::npos) << launch.err;
  const auto listed = sandbox_.sortie({"experiments", "list"});
  EXPECT_EQ(listed.out.find("broken"), std::string::npos) << listed.out;
  EXPECT_EQ(sandbox_.sortie({"experiments", "show", "1"}).exit_code, 1);
}

TEST(CliBehaviour, PluginsListShowsAManifestWithoutItsLibraryAsBroken) {
  CliSandbox sandbox;
  const std::string dir = std::string(SORTIE_TEST_SOURCE_DIR) + "/fixtures/missing_library";
  const auto list = sandbox.sortie({"plugins", "list"}, {{"SORTIE_PLUGIN_PATH", dir}});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(list.out, std::regex("sortie.schedulers +ghost +ghost 1.0 BROKEN")))
      << list.out;
  EXPECT_NE(list.out.find("sortie.schedulers:ghost: its library /nonexistent/libsortie_ghost.so "
                          "does not exist"),
            std::string::npos)
      << list.out;
  const auto json = sandbox.sortie({"plugins", "list", "--json"}, {{"SORTIE_PLUGIN_PATH", dir}});
  EXPECT_NE(
      json.out.find(R"("broken":"its library /nonexistent/libsortie_ghost.so does not exist)"),
      std::string::npos)
      << json.out;
}

}  // namespace
}  // namespace sortie::testing
