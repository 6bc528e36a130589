// End-to-end: `sortie run` on local_cwd, then status, log, list and cancel from separate
// processes, as from another shell.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

TEST(CliRun, SubmitPrintsHandleThenOtherProcessesSeeTheApp) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--", "echo", "hi"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);
  EXPECT_TRUE(std::regex_match(handle, std::regex("local_cwd://default/echo-[a-z0-9]+"))) << handle;

  const std::string status = sandbox.wait_terminal(handle);
  EXPECT_EQ(json_string_member(status, "state"), "SUCCEEDED") << status;
  EXPECT_NE(status.find("\"exit_code\":0"), std::string::npos) << status;

  const auto log = sandbox.sortie({"log", handle});
  EXPECT_EQ(log.exit_code, 0) << log.err;
  EXPECT_EQ(log.out, "echo/0 hi\n");

  const auto list = sandbox.sortie({"list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(list.out, std::regex(handle + " +echo +SUCCEEDED"))) << list.out;
}

TEST(CliRun, WaitLogPrintsReplicaPrefixedOutput) {
  CliSandbox sandbox;
  const auto run =
      sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--log", "utils.echo", "--msg", "hi"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\necho/0 hi\n"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("SUCCEEDED"), std::string::npos) << run.err;
}

TEST(CliRun, FailingAppMakesWaitExitNonZero) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("FAILED"), std::string::npos) << run.err;
  const std::string status = sandbox.sortie({"status", first_line(run.out), "--json"}).out;
  EXPECT_NE(status.find("\"exit_code\":3"), std::string::npos) << status;
}

// `sortie COMMAND_LINE` with a terminal on its stdout and stderr, as typed in a shell: script(1)
// gives it a pseudo-terminal, whose output ("\r\n" line ends) comes back in `out`.
CommandResult sortie_on_terminal(CliSandbox& sandbox, const std::string& command_line,
                                 const std::map<std::string, std::string>& extra_env = {}) {
  sandbox.invoke_as({"script"});
  CommandResult result = sandbox.sortie({"-qec", "sortie " + command_line, "/dev/null"}, extra_env);
  sandbox.invoke_as({});
  return result;
}

// Issue 35: as `torchx run`, a local run typed on a terminal is followed to its end, logs
// streamed; captured (`handle=$(sortie run ...)`) or with --detach, only the handle is printed.
TEST(CliRun, OnATerminalALocalRunStreamsItsLogsAndExitsWithTheAppsStatus) {
  CliSandbox sandbox;
  const std::string failing = "-- sh -c 'echo from-the-app; exit 3'";
  const auto followed = sortie_on_terminal(sandbox, "run -s local_cwd " + failing);
  EXPECT_EQ(followed.exit_code, 1) << followed.out;
  EXPECT_NE(followed.out.find("sh/0 from-the-app\r\n"), std::string::npos) << followed.out;
  EXPECT_NE(followed.out.find(" FAILED"), std::string::npos) << followed.out;

  const auto detached = sortie_on_terminal(sandbox, "run --detach -s local_cwd " + failing);
  EXPECT_EQ(detached.exit_code, 0) << detached.out;
  EXPECT_TRUE(std::regex_match(detached.out, std::regex("local_cwd://default/sh-[a-z0-9]+\r\n")))
      << detached.out;

  const auto captured =
      sandbox.sortie({"run", "-s", "local_cwd", "--", "sh", "-c", "echo from-the-app; exit 3"});
  EXPECT_EQ(captured.exit_code, 0) << captured.err;
  EXPECT_TRUE(std::regex_match(captured.out, std::regex("local_cwd://default/sh-[a-z0-9]+\n")))
      << captured.out;
  EXPECT_EQ(captured.err, "");

  const auto contradictory = sandbox.sortie({"run", "--detach", "--wait", "--", "true"});
  EXPECT_EQ(contradictory.exit_code, 2) << contradictory.err;
  EXPECT_NE(contradictory.err.find("--detach"), std::string::npos) << contradictory.err;
}

// A scheduler that is not local returns at once on a terminal too, as `torchx run` does.
TEST(CliRun, OnATerminalARemoteRunPrintsItsHandleAndReturns) {
  CliSandbox sandbox;
  const auto run = sortie_on_terminal(sandbox, "run -s counting -- true",
                                      {{"SORTIE_PLUGIN_PATH", COUNTING_PLUGIN_DIR}});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_TRUE(std::regex_match(run.out, std::regex("counting://[^\r\n]+\r\n"))) << run.out;
}

// Issue 34: the first list after many apps ended unobserved refreshes them all; on a terminal it
// says how far it got instead of printing nothing until the end.
TEST(CliList, OnATerminalTheRefreshOfUnfinishedAppsShowsItsProgress) {
  CliSandbox sandbox;
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", COUNTING_PLUGIN_DIR}};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(sandbox.sortie({"run", "-s", "counting", "--", "true"}, env).exit_code, 0);
  }
  const auto listed = sortie_on_terminal(sandbox, "list", env);
  EXPECT_EQ(listed.exit_code, 0) << listed.out;
  EXPECT_NE(listed.out.find("refreshing the states of apps not ended on record: 3 of 3"),
            std::string::npos)
      << listed.out;
  const auto captured = sandbox.sortie({"list"}, env);
  EXPECT_EQ(captured.err, "");
}

// Issue 26: `run --wait` waited without bound. --timeout (default a day) ends the wait: the app
// keeps running, and the command exits 3 naming how to stop it.
TEST(CliRun, WaitRunningOutOfItsTimeoutExits3AndLeavesTheAppRunning) {
  CliSandbox sandbox;
  for (const std::string follow : {"--wait", "--log"}) {
    const auto run =
        sandbox.sortie({"run", "-s", "local_cwd", follow, "--timeout", "1", "--", "sleep", "60"});
    EXPECT_EQ(run.exit_code, 3) << follow << run.err;
    const std::string handle = first_line(run.out);
    EXPECT_NE(run.err.find(handle + " is still RUNNING after --timeout 1 s"), std::string::npos)
        << run.err;
    EXPECT_EQ(json_string_member(sandbox.sortie({"status", handle, "--json"}).out, "state"),
              "RUNNING");
    sandbox.sortie({"cancel", handle});
  }
  const auto without_wait =
      sandbox.sortie({"run", "-s", "local_cwd", "--timeout", "1", "--", "true"});
  EXPECT_EQ(without_wait.exit_code, 2);
  EXPECT_NE(without_wait.err.find("--timeout bounds the wait of --wait or --log"),
            std::string::npos)
      << without_wait.err;
}

TEST(CliRun, CancelStopsASleepingApp) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--", "sleep", "1000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);

  std::string status;
  std::smatch pid;
  for (int i = 0; i < 200; ++i) {
    status = sandbox.sortie({"status", handle, "--json"}).out;
    if (json_string_member(status, "state") == "RUNNING" &&
        std::regex_search(status, pid, std::regex("\"pid\":([0-9]+)"))) {
      break;
    }
    usleep(20'000);
  }
  ASSERT_EQ(json_string_member(status, "state"), "RUNNING") << status;
  const long replica_pid = std::stol(pid[1].str());
  EXPECT_TRUE(process_exists(replica_pid));

  const auto cancel = sandbox.sortie({"cancel", handle, "--wait"});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_NE(cancel.out.find("CANCELLED"), std::string::npos) << cancel.out;
  EXPECT_EQ(json_string_member(sandbox.sortie({"status", handle, "--json"}).out, "state"),
            "CANCELLED");
  EXPECT_FALSE(process_exists(replica_pid));
}

TEST(CliRun, SpecWithThreeRolesOfTwoReplicasSubstitutesMacrosPerReplica) {
  CliSandbox sandbox;
  const std::string spec = sandbox.write_file("cwd/app.yaml", R"(name: grid
roles:
  - name: alpha
    entrypoint: echo
    args: ["${role_name}", "${replica_id}", "of", "${num_replicas}"]
    num_replicas: 2
  - name: beta
    entrypoint: echo
    args: ["${role_name}", "${replica_id}", "of", "${num_replicas}"]
    num_replicas: 2
  - name: gamma
    entrypoint: sh
    args: ["-c", "echo $SORTIE_ROLE_NAME $SORTIE_REPLICA_ID ${app_id}"]
    num_replicas: 2
)");
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--spec", spec});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const std::string handle = first_line(run.out);
  const std::string app_id = handle.substr(handle.rfind('/') + 1);
  const auto log = sandbox.sortie({"log", handle});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  for (const std::string& line : std::vector<std::string>{
           "alpha/0 alpha 0 of 2\n", "alpha/1 alpha 1 of 2\n", "beta/0 beta 0 of 2\n",
           "beta/1 beta 1 of 2\n", "gamma/0 gamma 0 " + app_id + "\n",
           "gamma/1 gamma 1 " + app_id + "\n"}) {
    EXPECT_NE(log.out.find(line), std::string::npos) << "missing: " << line << "in:\n" << log.out;
  }
  EXPECT_EQ(std::count(log.out.begin(), log.out.end(), '\n'), 6) << log.out;
  const auto one = sandbox.sortie({"log", handle + "/beta/1"});
  EXPECT_EQ(one.out, "beta/1 beta 1 of 2\n");
}

TEST(CliRun, DryrunPrintsTheRequestAndSubmitsNothing) {
  CliSandbox sandbox;
  const auto run =
      sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "utils.echo", "--msg", "dry"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("=== SCHEDULER REQUEST ==="), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("dry"), std::string::npos) << run.out;
  const auto list = sandbox.sortie({"list", "--json"});
  EXPECT_NE(list.out.find("\"apps\":[]"), std::string::npos) << list.out;
}

TEST(CliRun, SortieconfigSuppliesSchedulerDefaults) {
  CliSandbox sandbox;
  const std::string log_dir = sandbox.root() + "/configured-logs";
  // The user's own file: log_dir chooses where files are written, which a working directory's
  // untrusted .sortieconfig may not (docs/config-trust.md TRUST-2).
  sandbox.write_file("home/.sortieconfig", "[local_cwd]\nlog_dir = " + log_dir + "\n");
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "echo", "x"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string app_id = first_line(run.out).substr(first_line(run.out).rfind('/') + 1);
  std::ifstream out(log_dir + "/default/" + app_id + "/echo/0/stdout.log");
  std::string line;
  std::getline(out, line);
  EXPECT_EQ(line, "x");
}

TEST(CliRun, TheStoresWalIsEmptiedByABackgroundCheckpoint) {
  CliSandbox sandbox;
  const std::string wal = sandbox.root() + "/state/sortie.db-wal";
  std::vector<std::string> handles;
  // Each run commits about 30 WAL frames (4 KiB pages).
  for (int i = 0; i < 12; ++i) {
    const auto run = sandbox.sortie({"run", "--wait", "-s", "local_cwd", "--", "true"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    handles.push_back(first_line(run.out));
  }
  // Without the helper the WAL would now hold every frame of the twelve runs (over 300). With
  // it, a command that leaves 256 or more starts the helper, which empties the WAL: at rest it
  // holds fewer. The helper runs detached: give it up to 10 s.
  constexpr uintmax_t kHeader = 32, kFrame = 24 + 4096, kThreshold = 256;
  std::error_code ec;
  for (int round = 0;
       round < 500 && std::filesystem::file_size(wal, ec) >= kHeader + kThreshold * kFrame;
       ++round) {
    ::usleep(20000);
  }
  EXPECT_TRUE(std::filesystem::exists(wal));
  EXPECT_LT(std::filesystem::file_size(wal, ec), kHeader + kThreshold * kFrame);
  // Everything committed is still there, now in the database file.
  const auto list = sandbox.sortie({"list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const std::string& handle : handles) {
    EXPECT_NE(list.out.find(handle), std::string::npos) << handle << " missing from\n" << list.out;
  }
}

TEST(CliRun, DescribeShowsTheDefinitionFromTheStore) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "echo", "a", "b"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto describe = sandbox.sortie({"describe", first_line(run.out)});
  EXPECT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_NE(describe.out.find("entrypoint: echo"), std::string::npos) << describe.out;
  EXPECT_NE(describe.out.find("args: a b"), std::string::npos) << describe.out;
  EXPECT_NE(describe.out.find("SUCCEEDED"), std::string::npos) << describe.out;
}

}  // namespace
}  // namespace sortie::testing

namespace sortie::testing {
namespace {

TEST(CliLog, RegexStreamsAndTimeBoundsFilterWholeLines) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "sh", "-c",
                                   "echo loss=1; echo step 2; echo warn >&2; echo loss=3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = run.out.substr(0, run.out.find('\n'));

  EXPECT_EQ(sandbox.sortie({"log", handle, "--regex", "^loss="}).out, "sh/0 loss=1\nsh/0 loss=3\n");
  EXPECT_EQ(sandbox.sortie({"log", handle, "--streams", "stderr"}).out, "sh/0 warn\n");
  EXPECT_EQ(sandbox.sortie({"log", handle, "--streams", "stdout", "--no-prefix"}).out,
            "loss=1\nstep 2\nloss=3\n");
  EXPECT_EQ(sandbox.sortie({"log", handle, "--since", "1h"}).out.size(),
            sandbox.sortie({"log", handle}).out.size());
  EXPECT_EQ(sandbox.sortie({"log", handle, "--until", "1h"}).out, "");

  const auto bad = sandbox.sortie({"log", handle, "--since", "yesterday"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--since 'yesterday'"), std::string::npos) << bad.err;
  const auto bad_regex = sandbox.sortie({"log", handle, "--regex", "("});
  EXPECT_EQ(bad_regex.exit_code, 2);
  EXPECT_NE(bad_regex.err.find("--regex '('"), std::string::npos) << bad_regex.err;
}

TEST(CliRun, InterruptedWaitCancelsTheAppAndLeavesNothingRunning) {
  CliSandbox sandbox;
  // SIGINT to `run --wait`, as Ctrl-C in a terminal, once the replica is running.
  const auto run = sandbox.sortie_interrupted(
      {"run", "-s", "local_cwd", "--wait", "--", "sleep", "1000"}, SIGINT,
      [&](const std::string& out) {
        const std::string handle = out.substr(0, out.find('\n'));
        return !handle.empty() &&
               json_string_member(sandbox.sortie({"status", handle, "--json"}).out, "state") ==
                   "RUNNING";
      });
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_NE(run.err.find("interrupted by signal 2"), std::string::npos) << run.err;
  const std::string handle = run.out.substr(0, run.out.find('\n'));
  const std::string status = sandbox.sortie({"status", handle, "--json"}).out;
  EXPECT_EQ(json_string_member(status, "state"), "CANCELLED") << status;
  std::smatch pid;
  ASSERT_TRUE(std::regex_search(status, pid, std::regex("\"pid\":([0-9]+)"))) << status;
  EXPECT_FALSE(process_exists(std::stol(pid[1].str())));
}

}  // namespace
}  // namespace sortie::testing
