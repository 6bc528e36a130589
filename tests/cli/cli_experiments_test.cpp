// `sortie launch` and `sortie experiments`, end to end through the real binary: a 2x2 sweep is
// one experiment of four work units that another shell sees and cancels as one; a job group's
// jobs start together and stop together; refusals name the field or executor at fault.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

class CliExperimentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Records its name and args (a file in the working directory, the CLI's), then waits for a
    // "release" file there that never comes, or fails when told to: a group's client fails once
    // its server has started (at most ~10 s), so the test sees both start before one stops both.
    const std::string script = sandbox_.write_file("job.sh", R"(#!/bin/sh
echo "$SORTIE_JOB_NAME $*"
touch "started_$SORTIE_JOB_NAME"
case "$*" in *--fail*)
  server="started_${SORTIE_JOB_NAME%_client}_server"
  tries=0
  while [ ! -e "$server" ] && [ "$tries" -lt 200 ]; do sleep 0.05; tries=$((tries + 1)); done
  exit 3 ;;
esac
while [ ! -e release ]; do sleep 0.05; done
)");
    ::chmod(script.c_str(), 0755);
  }
  // An experiment file `title`.yaml: job.sh as job `train`, swept over `product`, run in the
  // live directory, where the test puts `release`.
  std::string write_sweep(const std::string& title, const std::string& product) const {
    return sandbox_.write_file(title + ".yaml", "title: " + title + R"(
live_workdir: true
executables:
  trainer: {binary: ./job.sh}
job:
  executable: trainer
  name: train
sweep:
  product: )" + product + "\n");
  }
  CliSandbox sandbox_;
};

// Issue 25: `experiments cancel --help` (and tag --help) read --help as an experiment id. Every
// subcommand prints its usage and exits 0.
TEST_F(CliExperimentsTest, EverySubcommandAnswersHelpWithItsUsage) {
  for (const std::string sub : {"list", "show", "cancel", "rerun", "note", "tag", "diff"}) {
    const CommandResult help = sandbox_.sortie({"experiments", sub, "--help"});
    EXPECT_EQ(help.exit_code, 0) << sub << ": " << help.err;
    EXPECT_EQ(help.out.rfind("usage: sortie experiments " + sub, 0), 0u) << sub << ": " << help.out;
  }
}

TEST_F(CliExperimentsTest, ASweepIsOneExperimentThatAnotherShellSeesAndCancels) {
  const std::string file = write_sweep("sweep", "{lr: [0.1, 0.01], batch_size: [16, 32]}");
  const CommandResult launched = sandbox_.sortie({"launch", file});
  ASSERT_EQ(launched.exit_code, 0) << launched.err;
  const std::string id = experiment_id(launched.out);
  ASSERT_FALSE(id.empty()) << launched.out;
  const auto jobs = launched_jobs(launched.out);
  ASSERT_EQ(jobs.size(), 4u) << launched.out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].first, id + "_" + std::to_string(i + 1) + "_train");
  }

  // Another shell sees one experiment of four running work units...
  const CommandResult listed = sandbox_.sortie({"experiments", "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find(id + " "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("sweep"), std::string::npos) << listed.out;
  const CommandResult shown = sandbox_.sortie({"experiments", "show", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  for (int unit = 1; unit <= 4; ++unit) {
    EXPECT_NE(shown.out.find("work unit " + std::to_string(unit) + ":"), std::string::npos)
        << shown.out;
  }
  EXPECT_EQ(shown.out.find("work unit 5:"), std::string::npos) << shown.out;
  // A launch that finished is never partial.
  EXPECT_NE(shown.out.find("\nstate: RUNNING\n"), std::string::npos) << shown.out;

  // ...and cancels it as one.
  const CommandResult cancelled = sandbox_.sortie({"experiments", "cancel", id});
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_NE(cancelled.out.find("experiment " + id + " CANCELLED"), std::string::npos)
      << cancelled.out;
  for (const auto& [name, handle] : jobs) {
    EXPECT_EQ(json_string_member(sandbox_.wait_terminal(handle), "state"), "CANCELLED") << name;
  }

  // The sweep's values reached the jobs as XManager flags, in itertools.product order.
  const CommandResult first_log = sandbox_.sortie({"log", jobs[0].second});
  EXPECT_NE(first_log.out.find(jobs[0].first + " --lr=0.1 --batch_size=16"), std::string::npos)
      << first_log.out;
  const CommandResult last_log = sandbox_.sortie({"log", jobs[3].second});
  EXPECT_NE(last_log.out.find(jobs[3].first + " --lr=0.01 --batch_size=32"), std::string::npos)
      << last_log.out;
}

TEST_F(CliExperimentsTest, AJobGroupStartsTogetherAndStopsTogether) {
  const std::string file = sandbox_.write_file("group.yaml", R"(title: gang
live_workdir: true
executables:
  job: {binary: ./job.sh}
job_group:
  server: {executable: job, args: {port: 8080}}
  client: {executable: job, args: [--fail]}
)");
  const CommandResult launched = sandbox_.sortie({"launch", file, "--wait"});
  // The client fails at once; the server, which would wait forever, is stopped with it.
  EXPECT_EQ(launched.exit_code, 1) << launched.out << launched.err;
  const auto jobs = launched_jobs(launched.out);
  ASSERT_EQ(jobs.size(), 2u) << launched.out;
  EXPECT_EQ(jobs[0].second, jobs[1].second) << "a group is one app";
  const std::string id = experiment_id(launched.out);
  EXPECT_NE(launched.out.find("experiment " + id + " FAILED"), std::string::npos) << launched.out;
  struct stat info {};
  EXPECT_EQ(::stat((sandbox_.root() + "/cwd/started_" + id + "_1_server").c_str(), &info), 0);
  EXPECT_EQ(::stat((sandbox_.root() + "/cwd/started_" + id + "_1_client").c_str(), &info), 0);
  const std::string status = sandbox_.wait_terminal(jobs[0].second);
  EXPECT_EQ(json_string_member(status, "state"), "FAILED") << status;
  const CommandResult logs = sandbox_.sortie({"log", jobs[0].second});
  EXPECT_NE(logs.out.find(id + "_1_server --port=8080"), std::string::npos) << logs.out;
}

// Issue 26: `launch --wait` waited without bound. --timeout (default a day) ends the wait: the
// work units keep running, and the command exits 3 naming how to stop them.
TEST_F(CliExperimentsTest, LaunchWaitRunningOutOfItsTimeoutExits3AndLeavesTheUnitsRunning) {
  const std::string file = sandbox_.write_file("slow.yaml", R"(title: slow
executables:
  sleeper: {binary: /bin/sleep}
job: {executable: sleeper, args: ["60"]}
)");
  const CommandResult launched = sandbox_.sortie({"launch", file, "--wait", "--timeout", "1"});
  EXPECT_EQ(launched.exit_code, 3) << launched.out << launched.err;
  const std::string id = experiment_id(launched.out);
  EXPECT_NE(launched.err.find("experiment " + id + " is still RUNNING after --timeout 1 s"),
            std::string::npos)
      << launched.err;
  const auto jobs = launched_jobs(launched.out);
  ASSERT_EQ(jobs.size(), 1u) << launched.out;
  EXPECT_EQ(json_string_member(sandbox_.sortie({"status", jobs[0].second, "--json"}).out, "state"),
            "RUNNING");
  EXPECT_EQ(sandbox_.sortie({"experiments", "cancel", id}).exit_code, 0);
}

class CliLaunchSignalTest : public CliExperimentsTest, public ::testing::WithParamInterface<int> {};

TEST_P(CliLaunchSignalTest, ASignalToAWaitingLaunchCancelsTheExperiment) {
  // Finding F6: `launch --wait` died of the signal and left the experiment running.
  const std::string file = write_sweep("pair", "{lr: [0.1, 0.01]}");
  const CommandResult launched = sandbox_.sortie_interrupted(
      {"launch", file, "--wait"}, GetParam(), [](const std::string& out) {
        return std::count(out.begin(), out.end(), '\n') >= 3;  // the experiment and its 2 units
      });
  EXPECT_EQ(launched.exit_code, 130) << launched.out << launched.err;
  EXPECT_NE(launched.err.find("cancelling experiment"), std::string::npos) << launched.err;
  const auto jobs = launched_jobs(launched.out);
  ASSERT_EQ(jobs.size(), 2u) << launched.out;
  for (const auto& job : jobs) {
    EXPECT_EQ(json_string_member(sandbox_.wait_terminal(job.second), "state"), "CANCELLED")
        << job.second;
  }
}

INSTANTIATE_TEST_SUITE_P(SigintAndSigterm, CliLaunchSignalTest, ::testing::Values(SIGINT, SIGTERM));

// Issue 16 point 5: a `launch` SIGKILLed part-way through a sweep leaves its experiment PARTIAL
// with the reason, not the state of the units it happened to launch. It is killed inside the
// 3rd schedule(), after the scheduler started that app: the 3rd unit still lists it.
TEST_F(CliExperimentsTest, ALaunchKilledPartWayLeavesItsExperimentPartial) {
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", COUNTING_PLUGIN_DIR}};
  // The counting scheduler (tests/cli/fixtures) holds the 3rd schedule() until this file goes.
  const std::string hold = sandbox_.write_file("state/schedulers/counting/hold_after", "3");
  const std::string scheduled = sandbox_.root() + "/state/schedulers/counting/scheduled";
  const std::string file = sandbox_.write_file("twenty.yaml", R"(title: twenty
executables:
  trainer: {binary: ./job.sh}
job: {executable: trainer, name: train, executor: {type: counting}}
sweep:
  product: {seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]}
)");
  const CommandResult killed = sandbox_.sortie_interrupted(
      {"launch", file}, SIGKILL,
      [&](const std::string&) {
        std::ifstream in(scheduled);
        return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(),
                          '\n') >= 3;
      },
      env);
  std::filesystem::remove(hold);
  ASSERT_EQ(killed.exit_code, 128 + SIGKILL) << killed.out << killed.err;
  const std::string id = experiment_id(killed.out);
  ASSERT_FALSE(id.empty()) << killed.out;

  const CommandResult shown = sandbox_.sortie({"experiments", "show", id}, env);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(std::regex_search(
      shown.out, std::regex("\nstate: PARTIAL \\(launched 3 of 20 work units; the launch was "
                            "interrupted \\(its process [0-9]+ is gone\\); the launched units "
                            "are [A-Z]+\\)\n")))
      << shown.out;
  const CommandResult json = sandbox_.sortie({"experiments", "show", id, "--json"}, env);
  EXPECT_EQ(json_string_member(json.out, "state"), "PARTIAL") << json.out;
  EXPECT_NE(
      json.out.find(R"({"id":3,"state":"RUNNING","args":{"seed":"3"},"jobs":[{"name":"1_3_train")"),
      std::string::npos)
      << json.out;
  EXPECT_TRUE(std::regex_match(json_string_member(json.out, "partial_reason"),
                               std::regex("launched 3 of 20 work units; the launch was "
                                          "interrupted \\(its process [0-9]+ is gone\\)")))
      << json.out;
  const CommandResult listed = sandbox_.sortie({"experiments", "list"}, env);
  EXPECT_TRUE(std::regex_search(listed.out, std::regex("\n" + id + " +twenty +20 +.* PARTIAL, ")))
      << listed.out;
  const CommandResult listed_json = sandbox_.sortie({"experiments", "list", "--json"}, env);
  EXPECT_NE(listed_json.out.find(R"("partial_reason":")" +
                                 json_string_member(json.out, "partial_reason") + "\""),
            std::string::npos)
      << listed_json.out;
  // Once settled (a command that can write records the reason), it reads the same.
  const CommandResult again = sandbox_.sortie({"experiments", "show", id, "--json"}, env);
  EXPECT_EQ(json_string_member(again.out, "partial_reason"),
            json_string_member(json.out, "partial_reason"));
  EXPECT_EQ(sandbox_.sortie({"experiments", "cancel", id}, env).exit_code, 0);
}

TEST_F(CliExperimentsTest, AnExecutorNoPluginProvidesIsRefusedByName) {
  const std::string file = sandbox_.write_file("lsf.yaml", R"(title: nowhere
executables:
  job: {binary: ./job.sh}
executors:
  cluster: {type: lsf}
job: {executable: job, executor: cluster}
)");
  const CommandResult launched = sandbox_.sortie({"launch", file});
  EXPECT_NE(launched.exit_code, 0);
  EXPECT_NE(launched.err.find("no plugin provides executor 'lsf' for process executables"),
            std::string::npos)
      << launched.err;
}

TEST_F(CliExperimentsTest, RequirementsTheSchedulerCannotHonourAreRefusedByJob) {
  for (const auto& [requirement, expected] : std::vector<std::pair<std::string, std::string>>{
           {"tpu_v4: 2x2", "job 'job': requirements: scheduler local_cwd cannot provide TPUs"},
           {"disk: 10GiB", "job 'job': requirements.disk: scheduler local_cwd cannot reserve disk"},
           {"location: us-east1",
            "requirements.location: scheduler local_cwd has no 'location'"}}) {
    const std::string file = sandbox_.write_file("req.yaml", R"(title: req
executables:
  job: {binary: ./job.sh}
job:
  executable: job
  executor: {type: local, requirements: {)" + requirement + R"(}}
)");
    const CommandResult launched = sandbox_.sortie({"launch", file});
    EXPECT_NE(launched.exit_code, 0) << requirement;
    EXPECT_NE(launched.err.find(expected), std::string::npos)
        << requirement << ": " << launched.err;
  }
  EXPECT_EQ(sandbox_.sortie({"list"}).out.find("local_cwd://"), std::string::npos);
}

TEST_F(CliExperimentsTest, AMissingExecutableIsRefusedBeforeAnythingRuns) {
  const std::string file = sandbox_.write_file("missing.yaml", R"(title: missing
executables:
  job: {binary: ./no-such-script.sh}
job: {executable: job}
)");
  const CommandResult launched = sandbox_.sortie({"launch", file});
  EXPECT_NE(launched.exit_code, 0);
  EXPECT_NE(launched.err.find("no-such-script.sh"), std::string::npos) << launched.err;
  const CommandResult listed = sandbox_.sortie({"list"});
  EXPECT_EQ(listed.out.find("local_cwd://"), std::string::npos) << listed.out;
}

// A cloned experiment file's title cannot clear the screen, move the cursor or reverse the text
// of a listing: human output shows its control characters escaped; --json keeps them, escaped as
// JSON.
TEST_F(CliExperimentsTest, ControlCharactersInATitleAreShownEscaped) {
  const std::string file = sandbox_.write_file("forged.yaml", R"(title: "x\e[2Jy\rz\u202Eend"
executables:
  trainer: {binary: ./job.sh}
job: {executable: trainer, name: train}
)");
  const std::string title = "x\x1b[2Jy\rz\u202eend";
  const std::string shown = R"(x\x1b[2Jy\x0dz\u202eend)";
  const auto expect_escaped = [&](const CommandResult& result) {
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find(shown), std::string::npos) << result.out;
    for (const std::string raw : {"\x1b", "\r", "\u202e"}) {
      EXPECT_EQ(result.out.find(raw), std::string::npos) << result.out;
    }
  };
  const CommandResult launched = sandbox_.sortie({"launch", file});
  expect_escaped(launched);
  const std::string id = experiment_id(launched.out);
  ASSERT_FALSE(id.empty()) << launched.out;
  expect_escaped(sandbox_.sortie({"experiments", "list"}));
  expect_escaped(sandbox_.sortie({"experiments", "show", id}));

  const CommandResult shown_json = sandbox_.sortie({"experiments", "show", id, "--json"});
  ASSERT_EQ(shown_json.exit_code, 0) << shown_json.err;
  EXPECT_EQ(json_string_member(shown_json.out, "title"), title) << shown_json.out;
  const CommandResult listed_json = sandbox_.sortie({"experiments", "list", "--json"});
  ASSERT_EQ(listed_json.exit_code, 0) << listed_json.err;
  rapidjson::Document listed;
  listed.Parse(listed_json.out.c_str());
  ASSERT_TRUE(listed.IsObject() && listed["experiments"].IsArray()) << listed_json.out;
  ASSERT_EQ(listed["experiments"].Size(), 1u) << listed_json.out;
  EXPECT_EQ(listed["experiments"][0]["title"].GetString(), title) << listed_json.out;
  EXPECT_EQ(sandbox_.sortie({"experiments", "cancel", id}).exit_code, 0);
}

}  // namespace
}  // namespace sortie::testing
