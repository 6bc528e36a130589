#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

class LocalSchedulerTest : public ::testing::Test {
 protected:
  // Roles run `sh -c SCRIPT`; the script sees the replica id as $0.
  static std::string shell_role(const std::string& name, const std::string& script,
                                int replicas = 1, const std::string& extra = "") {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.String(script.c_str());
    return R"({"name":")" + name + R"(","entrypoint":"sh","args":["-c",)" +
           std::string(buffer.GetString()) + R"(,"${replica_id}"],"num_replicas":)" +
           std::to_string(replicas) + extra + "}";
  }
  std::string submit(const std::string& id, const std::string& roles,
                     const std::string& cfg = "{}") {
    return scheduler_.submit(dryrun_input(id, "[" + roles + "]", cfg));
  }
  static const rapidjson::Value& replica(const rapidjson::Document& status, size_t role,
                                         size_t id) {
    return status["roles"][static_cast<rapidjson::SizeType>(role)]["replicas"]
                 [static_cast<rapidjson::SizeType>(id)];
  }
  static std::string app_dir(const rapidjson::Document& status) {
    return std::string(status["ui_url"].GetString()).substr(std::strlen("file://"));
  }
  static rapidjson::Document state_file(const rapidjson::Document& status) {
    std::ifstream file(state_json_path(app_dir(status)));
    std::stringstream text;
    text << file.rdbuf();
    return parse(text.str());
  }

  TempDir state_;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_F(LocalSchedulerTest, SucceedsWithExitCodesAndTimes) {
  const std::string app = submit("ok", shell_role("worker", "exit 0", 2));
  ASSERT_EQ(app, "ok");
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["schema"].GetString(), "sortie.status/1");
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED");
  EXPECT_EQ(status["num_restarts"].GetInt(), 0);
  EXPECT_EQ(app_dir(status), state_.path() + "/logs/test/ok");
  for (size_t id = 0; id < 2; ++id) {
    const rapidjson::Value& r = replica(status, 0, id);
    EXPECT_STREQ(r["state"].GetString(), "SUCCEEDED");
    EXPECT_EQ(r["exit_code"].GetInt(), 0);
    EXPECT_GT(r["pid"].GetInt64(), 0);
    EXPECT_GE(r["finished_at"].GetInt64(), r["started_at"].GetInt64());
    EXPECT_STREQ(r["hostname"].GetString(), "localhost");
  }
}

TEST_F(LocalSchedulerTest, FailingReplicaFailsTheAppWithItsExitCode) {
  const std::string app = submit("bad", shell_role("worker", "exit 7"));
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica(status, 0, 0)["exit_code"].GetInt(), 7);
  EXPECT_STREQ(replica(status, 0, 0)["state"].GetString(), "FAILED");
  EXPECT_NE(std::string(status["msg"].GetString()).find("worker/0"), std::string::npos);
}

TEST_F(LocalSchedulerTest, SignalledReplicaHasExitCode128PlusSignal) {
  const std::string app = submit("sig", shell_role("worker", "kill -9 $$"));
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica(status, 0, 0)["exit_code"].GetInt(), 128 + 9);
}

TEST_F(LocalSchedulerTest, CommandNotFoundFailsWithTheExecMessage) {
  const std::string app = submit("nocmd", R"({"name":"w","entrypoint":"nosuchcmd-sortie"})");
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica(status, 0, 0)["exit_code"].GetInt(), 127);
  EXPECT_STREQ(replica(status, 0, 0)["msg"].GetString(),
               "exec 'nosuchcmd-sortie': No such file or directory");
}

TEST_F(LocalSchedulerTest, FailureTerminatesTheOtherReplicas) {
  const std::string app =
      submit("failfast", shell_role("worker", "if [ $0 = 0 ]; then exit 3; fi; exec sleep 1000", 2),
             R"({"cancel_grace_period":5})");
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica(status, 0, 0)["exit_code"].GetInt(), 3);
  EXPECT_STREQ(replica(status, 0, 1)["state"].GetString(), "CANCELLED");
  EXPECT_EQ(replica(status, 0, 1)["exit_code"].GetInt(), 128 + SIGTERM);
  EXPECT_TRUE(process_gone(replica(status, 0, 1)["pid"].GetInt64()));
}

TEST_F(LocalSchedulerTest, CancelStopsEveryReplica) {
  const std::string app = submit(
      "cancel", shell_role("a", "exec sleep 1000", 2) + "," + shell_role("b", "exec sleep 1000"));
  const rapidjson::Document running = scheduler_.wait_running(app);
  ASSERT_STREQ(running["state"].GetString(), "RUNNING");
  std::vector<int64_t> pids;
  for (size_t role = 0; role < 2; ++role) {
    for (const auto& r :
         running["roles"][static_cast<rapidjson::SizeType>(role)]["replicas"].GetArray()) {
      pids.push_back(r["pid"].GetInt64());
      EXPECT_FALSE(process_gone(pids.back()));
    }
  }
  ASSERT_EQ(pids.size(), 3u);
  const Result cancelled = scheduler_.cancel(app);
  ASSERT_EQ(cancelled.status, SORTIE_OK) << cancelled.err;
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "CANCELLED");
  for (const int64_t pid : pids) EXPECT_TRUE(process_gone(pid)) << pid;
  EXPECT_EQ(replica(status, 0, 0)["exit_code"].GetInt(), 128 + SIGTERM);
  // Cancelling a terminal app succeeds and changes nothing.
  EXPECT_EQ(scheduler_.cancel(app).status, SORTIE_OK);
  EXPECT_STREQ(parse(scheduler_.describe(app).out)["state"].GetString(), "CANCELLED");
}

TEST_F(LocalSchedulerTest, CancelEscalatesToSigkillAfterTheGracePeriod) {
  const std::string app = submit("stubborn",
                                 shell_role("a",
                                            "trap '' TERM; echo ready; "
                                            "while :; do sleep 1; done"),
                                 R"({"cancel_grace_period":0.2})");
  // "ready" means the trap is in place, so SIGTERM is ignored from then on.
  auto reader = scheduler_.open_logs(app, R"({"schema":"sortie.log_request/1","follow":true})");
  std::vector<Line> lines;
  while (lines.empty() && !reader->next(60000, &lines)) {
  }
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].data, "ready\n");
  ASSERT_EQ(scheduler_.cancel(app).status, SORTIE_OK);
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "CANCELLED");
  EXPECT_EQ(replica(status, 0, 0)["exit_code"].GetInt(), 128 + SIGKILL);
}

TEST_F(LocalSchedulerTest, KilledSupervisorTakesItsReplicasAlong) {
  const std::string app = submit("orphan", shell_role("a", "exec sleep 1000", 2));
  const rapidjson::Document running = scheduler_.wait_running(app);
  const rapidjson::Document state = state_file(running);
  const int64_t supervisor = state["supervisor"]["pid"].GetInt64();
  const int64_t pids[] = {replica(running, 0, 0)["pid"].GetInt64(),
                          replica(running, 0, 1)["pid"].GetInt64()};
  // pidfds let the test wait for the replicas' exit without sleeping.
  std::vector<int> pid_fds;
  for (const int64_t pid : pids) {
    pid_fds.push_back(static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0)));
    ASSERT_GE(pid_fds.back(), 0);
  }
  ASSERT_EQ(::kill(static_cast<pid_t>(supervisor), SIGKILL), 0);
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(std::string(status["msg"].GetString()),
            "supervisor (pid " + std::to_string(supervisor) + ") died unexpectedly");
  for (size_t i = 0; i < pid_fds.size(); ++i) {
    pollfd exited{pid_fds[i], POLLIN, 0};
    EXPECT_EQ(::poll(&exited, 1, 60000), 1) << pids[i];
    EXPECT_TRUE(process_gone(pids[i])) << pids[i];
    ::close(pid_fds[i]);
  }
}

// A supervisor whose app directory was deleted (a scratch state directory removed under a
// running app) cannot record its end anywhere: it must exit rather than retry for an hour.
TEST_F(LocalSchedulerTest, SupervisorWhoseAppDirectoryWasRemovedStillExits) {
  const std::string app = submit("removed", shell_role("a", "exec sleep 1000"));
  const rapidjson::Document running = scheduler_.wait_running(app);
  const auto supervisor = static_cast<pid_t>(state_file(running)["supervisor"]["pid"].GetInt64());
  const int supervisor_fd = static_cast<int>(::syscall(SYS_pidfd_open, supervisor, 0));
  ASSERT_GE(supervisor_fd, 0);
  std::filesystem::remove_all(app_dir(running));
  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
  pollfd exited{supervisor_fd, POLLIN, 0};
  EXPECT_EQ(::poll(&exited, 1, 10000), 1) << "the supervisor still runs 10 s after SIGTERM";
  ::close(supervisor_fd);
}

// Issue 31: a replica's main process exits (a torchrun agent killed) while processes it started
// run on, one in its process group (a worker), one in a session of its own. Both must be dead
// before the attempt is judged and the retry starts: the retry finds each gone, a zombie, or
// with SIGKILL pending (it never runs again), and says which it saw.
TEST_F(LocalSchedulerTest, AReplicasLeftoverProcessesDieBeforeItsRetryStarts) {
  const std::string dir = state_.path();
  const std::string verdict =
      "for name in worker session; do p=$(cat " + dir +
      "/$name.pid); s=$(sed -n 's/^State:\t\\(.\\).*/\\1/p' /proc/$p/status 2>/dev/null); "
      "k=$(sed -n 's/^ShdPnd:\t/0x/p;s/^SigPnd:\t/0x/p' /proc/$p/status 2>/dev/null | "
      "while read m; do echo $(( m & 0x100 )); done | sort -u | tail -n1); "
      "if [ -z \"$s\" ] || [ \"$s\" = Z ] || [ \"${k:-0}\" != 0 ]; then echo $name gone; "
      "else echo $name alive $s; fi; done";
  // Host pids (cut's parent), which /proc shows even where the replica has a PID namespace.
  const std::string script =
      "if [ -e " + dir + "/attempted ]; then " + verdict + "; exit 0; fi; touch " + dir +
      "/attempted; (trap '' TERM; cut -d' ' -f4 /proc/self/stat >" + dir +
      "/worker.pid; exec sleep 1000) & setsid sh -c 'cut -d\\  -f4 /proc/self/stat >" + dir +
      "/session.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 & "
      "until [ -s " +
      dir + "/worker.pid ] && [ -s " + dir + "/session.pid ]; do sleep 0.01; done; exit 3";
  const std::string app = submit(
      "leftovers", shell_role("w", script, 1, R"(,"max_retries":1,"retry_policy":"REPLICA")"));
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED");
  EXPECT_EQ(replica(status, 0, 0)["restarts"].GetInt(), 1);
  std::ifstream log(app_dir(status) + "/w/0/stdout.log");
  std::stringstream printed;
  printed << log.rdbuf();
  EXPECT_EQ(printed.str(), "worker gone\nsession gone\n");
}

TEST_F(LocalSchedulerTest, ReplicaPolicyRestartsOnlyTheFailedReplica) {
  const std::string app = submit(
      "replica-policy",
      shell_role("w", "[ $0 = 1 ] || exit 3", 2, R"(,"max_retries":2,"retry_policy":"REPLICA")"));
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(status["num_restarts"].GetInt(), 2);
  EXPECT_EQ(replica(status, 0, 0)["restarts"].GetInt(), 2);
  EXPECT_EQ(replica(status, 0, 1)["restarts"].GetInt(), 0);
  EXPECT_STREQ(replica(status, 0, 1)["state"].GetString(), "SUCCEEDED");
}

TEST_F(LocalSchedulerTest, ApplicationPolicyRestartsEveryReplica) {
  const std::string app =
      submit("app-policy", shell_role("w", "[ $0 = 1 ] || exit 3", 2,
                                      R"(,"max_retries":2,"retry_policy":"APPLICATION")"));
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(status["num_restarts"].GetInt(), 2);
  EXPECT_EQ(replica(status, 0, 0)["restarts"].GetInt(), 2);
  EXPECT_EQ(replica(status, 0, 1)["restarts"].GetInt(), 2);
}

TEST_F(LocalSchedulerTest, RolePolicyRestartsOnlyTheFailedRole) {
  const std::string app = submit(
      "role-policy", shell_role("bad", "exit 4", 2, R"(,"max_retries":1,"retry_policy":"ROLE")") +
                         "," + shell_role("good", "exit 0"));
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica(status, 0, 0)["restarts"].GetInt(), 1);
  EXPECT_EQ(replica(status, 0, 1)["restarts"].GetInt(), 1);
  EXPECT_EQ(replica(status, 1, 0)["restarts"].GetInt(), 0);
  // Either replica of the second generation may fail first; the other is then terminated.
  const int first = replica(status, 0, 0)["exit_code"].GetInt();
  const int second = replica(status, 0, 1)["exit_code"].GetInt();
  EXPECT_TRUE(first == 4 || second == 4) << first << " " << second;
  EXPECT_NE(std::string(status["msg"].GetString()).find("failed: exited with code 4"),
            std::string::npos)
      << status["msg"].GetString();
}

TEST_F(LocalSchedulerTest, FailOnceThenSucceedNeedsOneRetry) {
  TempDir work;
  const std::string script = "if [ -e " + work.path() + "/marker-$1 ]; then exit 0; fi; touch " +
                             work.path() + "/marker-$1; exit 5";
  for (const int retries : {1, 0}) {
    const std::string id = "flaky-" + std::to_string(retries);
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.String(script.c_str());
    const std::string role = R"({"name":"w","entrypoint":"sh","args":["-c",)" +
                             std::string(buffer.GetString()) + R"(,"sh",")" + id +
                             R"("],"max_retries":)" + std::to_string(retries) + "}";
    const rapidjson::Document status = scheduler_.wait_terminal(submit(id, role));
    EXPECT_STREQ(status["state"].GetString(), retries == 1 ? "SUCCEEDED" : "FAILED") << id;
    EXPECT_EQ(status["num_restarts"].GetInt(), retries) << id;
    EXPECT_EQ(replica(status, 0, 0)["exit_code"].GetInt(), retries == 1 ? 0 : 5) << id;
  }
}

// The grace timer that stops a failed attempt belongs to that attempt: the attempt that replaces
// it runs past the grace period without being SIGKILLed.
class RestartedAttemptTest : public LocalSchedulerTest,
                             public ::testing::WithParamInterface<const char*> {};

TEST_P(RestartedAttemptTest, OutlivesTheGracePeriodOfTheStoppedAttempt) {
  TempDir work;
  // Markers in $W: started-N (replica N ran once), restarted-N (its second attempt runs).
  // Replica 1 dies once replica 0 is ready; replica 0 takes a moment to stop on SIGTERM (ROLE,
  // APPLICATION) or, never stopped (REPLICA), ends once replica 1 has restarted. A restarted
  // replica runs for 3 grace periods, then succeeds.
  const std::string script =
      "if [ -e $W/started-$0 ]; then touch $W/restarted-$0; sleep 1.5; exit 0; fi; "
      "if [ $0 = 1 ]; then until [ -e $W/started-0 ]; do sleep 0.01; done; touch $W/started-1; "
      "kill -9 $$; fi; "
      "trap 'sleep 0.2; exit 0' TERM; touch $W/started-0; "
      "until [ -e $W/restarted-1 ]; do sleep 0.01; done";
  const std::string policy = GetParam();
  const std::string env = R"("env":{"W":")" + work.path() + "\"}";
  const std::string app = submit(
      "restarted",
      shell_role("w", script, 2, R"(,"max_retries":1,"retry_policy":")" + policy + "\"," + env),
      R"({"cancel_grace_period":0.5})");
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED") << status["msg"].GetString();
  EXPECT_EQ(status["num_restarts"].GetInt(), 1);
  const bool whole_role = policy != "REPLICA";
  for (size_t id = 0; id < 2; ++id) {
    const rapidjson::Value& r = replica(status, 0, id);
    EXPECT_EQ(r["exit_code"].GetInt(), 0) << id << ": " << r["msg"].GetString();
    EXPECT_EQ(r["restarts"].GetInt(), id == 1 || whole_role ? 1 : 0) << id;
  }
  EXPECT_EQ(std::filesystem::exists(work.path() + "/restarted-0"), whole_role);
}

INSTANTIATE_TEST_SUITE_P(RetryPolicies, RestartedAttemptTest,
                         ::testing::Values("REPLICA", "ROLE", "APPLICATION"));

// A role's restart stops that role only: the grace timer, needed here because a/0 ignores
// SIGTERM, SIGKILLs a/0 and leaves role b, which waits for a's restart, running.
TEST_F(LocalSchedulerTest, StopTimerOfARoleRestartSparesTheOtherRoles) {
  TempDir work;
  const std::string env = R"("env":{"W":")" + work.path() + "\"}";
  const std::string a =
      "if [ -e $W/a$0 ]; then touch $W/restarted; exit 0; fi; "
      "if [ $0 = 1 ]; then until [ -e $W/a0 ]; do sleep 0.01; done; touch $W/a1; kill -9 $$; fi; "
      "trap '' TERM; touch $W/a0; while :; do sleep 0.1; done";
  const std::string b = "until [ -e $W/restarted ]; do sleep 0.01; done";
  const std::string app =
      submit("spared",
             shell_role("a", a, 2, R"(,"max_retries":1,"retry_policy":"ROLE",)" + env) + "," +
                 shell_role("b", b, 1, "," + env),
             R"({"cancel_grace_period":0.5})");
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED") << status["msg"].GetString();
  EXPECT_EQ(replica(status, 0, 0)["restarts"].GetInt(), 1);
  EXPECT_EQ(replica(status, 0, 1)["restarts"].GetInt(), 1);
  EXPECT_EQ(replica(status, 1, 0)["restarts"].GetInt(), 0);
  EXPECT_EQ(replica(status, 1, 0)["exit_code"].GetInt(), 0)
      << replica(status, 1, 0)["msg"].GetString();
}

TEST_F(LocalSchedulerTest, AnotherInstanceDescribesListsAndCancels) {
  const std::string done = submit("first", shell_role("w", "exit 0"));
  scheduler_.wait_terminal(done);
  const std::string running = submit("second", shell_role("w", "exec sleep 1000"));
  scheduler_.wait_running(running);

  SchedulerClient other("local_cwd", state_.path());  // as a later CLI process would
  EXPECT_STREQ(parse(other.describe(done).out)["state"].GetString(), "SUCCEEDED");
  EXPECT_STREQ(parse(other.describe(running).out)["state"].GetString(), "RUNNING");
  const Result listed = other.list(R"({"schema":"sortie.list_filter/1","session":"test"})");
  ASSERT_EQ(listed.status, SORTIE_OK) << listed.err;
  const rapidjson::Document apps = parse(listed.out);
  ASSERT_EQ(apps["apps"].Size(), 2u);
  EXPECT_STREQ(apps["apps"][0]["app_id"].GetString(), "first");
  EXPECT_STREQ(apps["apps"][0]["name"].GetString(), "app");
  EXPECT_STREQ(apps["apps"][1]["state"].GetString(), "RUNNING");
  EXPECT_EQ(parse(other.list(R"({"session":"elsewhere"})").out)["apps"].Size(), 0u);

  ASSERT_EQ(other.cancel(running).status, SORTIE_OK);
  EXPECT_STREQ(other.wait_terminal(running)["state"].GetString(), "CANCELLED");
}

TEST_F(LocalSchedulerTest, UnknownAppIsNotFound) {
  EXPECT_EQ(scheduler_.describe("nope").status, SORTIE_NOT_FOUND);
  EXPECT_EQ(scheduler_.cancel("nope").status, SORTIE_NOT_FOUND);
  EXPECT_EQ(scheduler_.wait("nope", "", 10).status, SORTIE_NOT_FOUND);
  const Result result = scheduler_.describe("nope");
  EXPECT_NE(result.err.find("'nope'"), std::string::npos) << result.err;
}

TEST_F(LocalSchedulerTest, ScheduleTwiceIsAlreadyExists) {
  const Result dry =
      scheduler_.dryrun(dryrun_input("twice", "[" + shell_role("w", "exit 0") + "]", "{}"));
  ASSERT_EQ(scheduler_.schedule(dry.out).status, SORTIE_OK);
  EXPECT_EQ(scheduler_.schedule(dry.out).status, SORTIE_ALREADY_EXISTS);
  scheduler_.wait_terminal("twice");
}

// The starter is spawned before the app's files are written (start_signal.hpp): when writing
// them fails, it is never told to go, and exits without starting anything.
TEST_F(LocalSchedulerTest, AScheduleThatFailsAfterSpawningTheStarterStartsNothing) {
  TempDir out;
  {
    SchedulerClient scheduler("local_cwd", state_.path());
    const Result dry = scheduler.dryrun(
        dryrun_input("blocked", "[" + shell_role("w", "touch " + out.path() + "/ran") + "]", "{}"));
    ASSERT_EQ(dry.status, SORTIE_OK) << dry.err;
    std::filesystem::create_directories(state_.path() + "/apps");
    std::filesystem::create_symlink("/elsewhere", state_.path() + "/apps/blocked");
    const Result scheduled = scheduler.schedule(dry.out);
    EXPECT_EQ(scheduled.status, SORTIE_ALREADY_EXISTS) << scheduled.err;
  }  // the instance waits for its starters: this one has exited
  EXPECT_FALSE(std::filesystem::exists(out.path() + "/ran"));
  EXPECT_FALSE(std::filesystem::exists(state_.path() + "/logs/test/blocked/supervisor.log"));
}

TEST_F(LocalSchedulerTest, WaitReturnsAtTimeoutWithTheCurrentState) {
  const std::string app = submit("slow", shell_role("w", "exec sleep 1000"));
  scheduler_.wait_running(app);
  const Result result = scheduler_.wait(app, "RUNNING", 50);
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  EXPECT_STREQ(parse(result.out)["state"].GetString(), "RUNNING");
  scheduler_.cancel(app);
  scheduler_.wait_terminal(app);
}

TEST_F(LocalSchedulerTest, EnvironmentReachesTheReplica) {
  TempDir out;
  const std::string app = submit(
      "env", shell_role("w",
                        "echo \"$SORTIE_REPLICA_ID $SORTIE_NUM_REPLICAS $GREETING $PWD\" > " +
                            out.path() + "/$0",
                        2, R"(,"env":{"GREETING":"hi-${replica_id}"})"));
  EXPECT_STREQ(scheduler_.wait_terminal(app)["state"].GetString(), "SUCCEEDED");
  const std::string cwd = std::filesystem::current_path().string();
  for (int id = 0; id < 2; ++id) {
    std::ifstream file(out.path() + "/" + std::to_string(id));
    std::string line;
    std::getline(file, line);
    EXPECT_EQ(line, std::to_string(id) + " 2 hi-" + std::to_string(id) + " " + cwd);
  }
}

TEST(LocalDirScheduler, RunsInTheImageDirectory) {
  TempDir state, image;
  SchedulerClient scheduler("local_dir", state.path());
  const std::string roles = R"([{"name":"w","entrypoint":"sh","args":["-c","pwd > where"],)"
                            R"("image":")" +
                            image.path() + "\"}]";
  const std::string app = scheduler.submit(dryrun_input("dir", roles, "{}"));
  EXPECT_STREQ(scheduler.wait_terminal(app)["state"].GetString(), "SUCCEEDED");
  std::ifstream file(image.path() + "/where");
  std::string line;
  std::getline(file, line);
  EXPECT_EQ(line, image.path());
}

}  // namespace
}  // namespace sortie::local::testing
