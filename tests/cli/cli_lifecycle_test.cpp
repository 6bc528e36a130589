// What happens to an app when the CLI that submitted it is signalled, killed or has its terminal
// closed, and when many CLIs run at once; exact logs through the CLI. Every check is by pid and
// through other `sortie` processes, as a user in another shell would see it.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

long replica_pid(const std::string& status_json) {
  std::smatch pid;
  if (!std::regex_search(status_json, pid, std::regex("\"pid\":([1-9][0-9]*)"))) return 0;
  return std::stol(pid[1].str());
}

// Runs `run --wait -- sleep 1000`, sends `signal` once the replica runs, returns the CLI's
// result and the app's handle.
CommandResult interrupt_waiting_run(const CliSandbox& sandbox, int signal, std::string* handle) {
  const CommandResult run = sandbox.sortie_interrupted(
      {"run", "-s", "local_cwd", "--wait", "--", "sleep", "1000"}, signal,
      [&](const std::string& out) {
        const std::string h = first_line(out);
        return !h.empty() && json_string_member(sandbox.sortie({"status", h, "--json"}).out,
                                                "state") == "RUNNING";
      });
  *handle = first_line(run.out);
  return run;
}

TEST(CliLifecycle, SigtermToAWaitingRunCancelsTheApp) {
  CliSandbox sandbox;
  std::string handle;
  const CommandResult run = interrupt_waiting_run(sandbox, SIGTERM, &handle);
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_NE(run.err.find("interrupted by signal 15"), std::string::npos) << run.err;
  const std::string status = sandbox.sortie({"status", handle, "--json"}).out;
  EXPECT_EQ(json_string_member(status, "state"), "CANCELLED") << status;
  const long pid = replica_pid(status);
  ASSERT_GT(pid, 0) << status;
  EXPECT_FALSE(process_exists(pid));
}

// The supervisor owns the app: neither a SIGKILLed CLI nor a closed terminal (SIGHUP) stops it,
// and it stays visible and cancellable from another process.
void expect_app_survives(int signal) {
  CliSandbox sandbox;
  std::string handle;
  const CommandResult run = interrupt_waiting_run(sandbox, signal, &handle);
  EXPECT_EQ(run.exit_code, 128 + signal);
  const std::string status = sandbox.sortie({"status", handle, "--json"}).out;
  ASSERT_EQ(json_string_member(status, "state"), "RUNNING") << status;
  const long pid = replica_pid(status);
  ASSERT_GT(pid, 0) << status;
  EXPECT_TRUE(process_exists(pid));
  EXPECT_NE(sandbox.sortie({"list", "--active"}).out.find(handle), std::string::npos);

  EXPECT_EQ(sandbox.sortie({"cancel", handle}).exit_code, 0);
  EXPECT_EQ(json_string_member(sandbox.wait_terminal(handle), "state"), "CANCELLED");
  EXPECT_FALSE(process_exists(pid));
}

TEST(CliLifecycle, KilledWaitingRunLeavesTheAppRunningVisibleAndCancellable) {
  expect_app_survives(SIGKILL);
}

TEST(CliLifecycle, HangupOfAWaitingRunLeavesTheAppRunning) { expect_app_survives(SIGHUP); }

// list --active refreshes before it filters: an app the store still records as running, but that
// has ended, is not shown (it was, with its fresh terminal state, until a later list).
TEST(CliLifecycle, ListActiveLeavesOutAnAppThatHasJustEnded) {
  CliSandbox sandbox;
  const CommandResult run = sandbox.sortie({"run", "-s", "local_cwd", "--", "sleep", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);
  for (int tries = 0; tries < 600; ++tries) {
    const std::string listed = sandbox.sortie({"list", "--active", "--json"}).out;
    const size_t at = listed.find("\"handle\":\"" + handle + "\"");
    if (at == std::string::npos) return;  // gone once it ended
    const size_t state_at = listed.find("\"state\":\"", at) + 9;
    const std::string state = listed.substr(state_at, listed.find('"', state_at) - state_at);
    ASSERT_TRUE(state == "PENDING" || state == "RUNNING") << listed;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL() << handle << " is still listed as active after a minute";
}

TEST(CliLifecycle, FiftyConcurrentRunsAreEachRecordedOnce) {
  CliSandbox sandbox;
  std::vector<std::vector<std::string>> commands(
      50, {"run", "-s", "local_cwd", "--wait", "--", "sh", "-c", "echo $SORTIE_APP_ID"});
  const std::vector<CommandResult> runs = sandbox.sortie_concurrently(commands);
  std::set<std::string> handles;
  for (const CommandResult& run : runs) {
    ASSERT_EQ(run.exit_code, 0) << run.err;
    handles.insert(first_line(run.out));
  }
  EXPECT_EQ(handles.size(), 50u);
  const std::string listed = sandbox.sortie({"list", "--json"}).out;
  std::set<std::string> listed_handles;
  const std::regex handle_member("\"handle\":\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(listed.begin(), listed.end(), handle_member);
       it != std::sregex_iterator(); ++it) {
    listed_handles.insert((*it)[1].str());
  }
  EXPECT_EQ(listed_handles, handles);
  for (const std::string& handle : handles) {
    const std::string status = sandbox.sortie({"status", handle, "--json"}).out;
    EXPECT_EQ(json_string_member(status, "state"), "SUCCEEDED") << status;
    // Each app printed its own id: logs and store agree.
    const std::string app_id = handle.substr(handle.rfind('/') + 1);
    EXPECT_EQ(sandbox.sortie({"log", handle, "--no-prefix"}).out, app_id + "\n");
  }
}

TEST(CliLog, AMillionLinesComeBackExactly) {
  CliSandbox sandbox;
  const CommandResult run =
      sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "seq", "1", "1000000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CommandResult log = sandbox.sortie({"log", first_line(run.out), "--no-prefix"});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  std::string expected;
  expected.reserve(6888896);
  for (int i = 1; i <= 1000000; ++i) expected += std::to_string(i) + "\n";
  EXPECT_EQ(log.out.size(), expected.size());
  EXPECT_TRUE(log.out == expected);
  // With prefixes, every line is "sh/0 " + the line: nothing split, nothing merged.
  const CommandResult prefixed = sandbox.sortie({"log", first_line(run.out), "--regex", "7$"});
  size_t lines = 0;
  for (size_t at = 0; at < prefixed.out.size(); at = prefixed.out.find('\n', at) + 1) ++lines;
  EXPECT_EQ(lines, 100000u);
  EXPECT_EQ(prefixed.out.substr(0, 10), "seq/0 7\nse");
}

TEST(CliLog, ALineLongerThanAMebibyteComesBackWhole) {
  CliSandbox sandbox;
  const CommandResult run =
      sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "sh", "-c",
                      "head -c 1500000 /dev/zero | tr '\\0' x; printf '\\rdone\\n'; echo tail"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CommandResult log = sandbox.sortie({"log", first_line(run.out), "--no-prefix"});
  EXPECT_EQ(log.out, std::string(1500000, 'x') + "\rdone\ntail\n");
}

// How many times `sortie ARGS...` asked the counting scheduler (tests/cli/fixtures) to
// describe an app; the command's result goes to `result`.
int describe_calls(const CliSandbox& sandbox, const std::vector<std::string>& args,
                   CommandResult* result) {
  const std::string calls = sandbox.root() + "/state/schedulers/counting/describe_calls";
  std::filesystem::remove(calls);
  *result = sandbox.sortie(args, {{"SORTIE_PLUGIN_PATH", COUNTING_PLUGIN_DIR}});
  EXPECT_EQ(result->exit_code, 0) << result->err;
  std::ifstream in(calls);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

// cancel and log ask for the app's state once, to say it is unknown or already over; cancel then
// follows it with the scheduler's wait(), which is not a describe.
TEST(CliLifecycle, CancelAndLogDescribeTheAppOnce) {
  CliSandbox sandbox;
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", COUNTING_PLUGIN_DIR}};
  const CommandResult finished =
      sandbox.sortie({"run", "-s", "counting", "--wait", "--", "echo", "hi"}, env);
  ASSERT_EQ(finished.exit_code, 0) << finished.err;
  CommandResult log;
  EXPECT_EQ(describe_calls(sandbox, {"log", first_line(finished.out)}, &log), 1);
  EXPECT_EQ(log.out, "echo/0 hi\n");

  CommandResult cancel;
  for (const std::vector<std::string>& wait :
       std::vector<std::vector<std::string>>{{}, {"--wait", "--timeout", "30"}}) {
    const CommandResult run = sandbox.sortie({"run", "-s", "counting", "--", "sleep", "60"}, env);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::vector<std::string> args = {"cancel", first_line(run.out)};
    args.insert(args.end(), wait.begin(), wait.end());
    EXPECT_EQ(describe_calls(sandbox, args, &cancel), 1)
        << "cancel with " << wait.size() << " args";
  }
  EXPECT_NE(cancel.out.find(" CANCELLED\n"), std::string::npos) << cancel.out;
}

}  // namespace
}  // namespace sortie::testing
