// Scale of the local scheduler: a thousand apps alive at once, a 256-replica app under a 1024
// open-file limit (soft, then hard), and cancels that race a supervisor still starting. Replicas
// block reading a line from a FIFO "gate", so every one of them is provably running at the same
// time without burning CPU, and all are released at once when the test writes one line each.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

class ScaleTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::mkfifo(gate_.c_str(), 0600), 0); }
  void TearDown() override {
    if (gate_writer_ >= 0) ::close(gate_writer_);
  }

  // Releases `replicas` replicas blocked in `read line < gate` (the shell reads a FIFO a byte at a
  // time, so each takes exactly one newline). The write end stays open until the test ends: a
  // replica that reaches the gate only now still finds its line instead of waiting forever.
  void open_gate(size_t replicas) {
    gate_writer_ = ::open(gate_.c_str(), O_RDWR);
    ASSERT_GE(gate_writer_, 0);
    const std::string lines(replicas, '\n');
    ASSERT_EQ(::write(gate_writer_, lines.data(), lines.size()),
              static_cast<ssize_t>(lines.size()));
  }
  std::string gate_role(int replicas) const {
    return R"({"name":"g","entrypoint":"sh","args":["-c","echo replica $0; read line < )" + gate_ +
           R"(","${replica_id}"],"num_replicas":)" + std::to_string(replicas) + "}";
  }
  // A role of `replicas` replicas printing their open-file limit, passing the gate, then
  // printing "done <replica id>".
  std::string limit_printing_role(int replicas) const {
    return R"({"name":"g","entrypoint":"sh","args":["-c","ulimit -n; read line < )" + gate_ +
           R"(; echo done $0","${replica_id}"],"num_replicas":)" + std::to_string(replicas) + "}";
  }
  // Waits until the app leaves SUBMITTED/PENDING; returns its status.
  rapidjson::Document wait_started(SchedulerClient& client, const std::string& app) {
    std::string state;
    rapidjson::Document status;
    do {
      const Result result = client.wait(app, state, 60000);
      EXPECT_EQ(result.status, SORTIE_OK) << result.err;
      if (result.status != SORTIE_OK) break;
      status = parse(result.out);
      state = status["state"].GetString();
    } while (state == "SUBMITTED" || state == "PENDING");
    return status;
  }
  // Runs a 256-replica app of limit_printing_role under the current limits and checks that each
  // replica ran at the same time, saw `replica_limit`, and had both its lines logged.
  void expect_wide_app_runs(rlim_t replica_limit) {
    constexpr int kReplicas = 256;
    const std::string app =
        scheduler_.submit(dryrun_input("wide", "[" + limit_printing_role(kReplicas) + "]", "{}"));
    ASSERT_FALSE(app.empty());
    const rapidjson::Document status = wait_started(scheduler_, app);
    ASSERT_STREQ(status["state"].GetString(), "RUNNING") << status["msg"].GetString();
    EXPECT_EQ(count_running(status), static_cast<size_t>(kReplicas));

    open_gate(kReplicas);
    const rapidjson::Document done = scheduler_.wait_terminal(app);
    ASSERT_STREQ(done["state"].GetString(), "SUCCEEDED") << done["msg"].GetString();
    std::vector<Line> lines;
    ASSERT_EQ(scheduler_.logs(app, R"({"schema":"sortie.log_request/1"})", &lines).status,
              SORTIE_OK);
    ASSERT_EQ(lines.size(), 2u * kReplicas);
    std::map<uint32_t, std::vector<std::string>> by_replica;
    for (const Line& line : lines) by_replica[line.replica_id].push_back(line.data);
    ASSERT_EQ(by_replica.size(), static_cast<size_t>(kReplicas));
    for (const auto& [replica, data] : by_replica) {
      const std::vector<std::string> expected{std::to_string(replica_limit) + "\n",
                                              "done " + std::to_string(replica) + "\n"};
      EXPECT_EQ(data, expected) << "replica " << replica;
    }
  }
  static size_t count_running(const rapidjson::Value& status) {
    size_t running = 0;
    for (const auto& role : status["roles"].GetArray()) {
      for (const auto& replica : role["replicas"].GetArray()) {
        running += std::string(replica["state"].GetString()) == "RUNNING" ? 1 : 0;
      }
    }
    return running;
  }

  TempDir state_;
  std::string gate_ = state_.path() + "/gate";
  int gate_writer_ = -1;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_F(ScaleTest, AThousandAppsRunAtOnceAndAllSucceed) {
  constexpr int kApps = 1000;
  std::vector<std::string> apps;
  for (int i = 0; i < kApps; ++i) {
    apps.push_back(
        scheduler_.submit(dryrun_input("a" + std::to_string(i), "[" + gate_role(1) + "]", "{}")));
    ASSERT_FALSE(apps.back().empty());
  }
  // Every app is visible to another instance (a later CLI) and running, all at once.
  SchedulerClient other("local_cwd", state_.path());
  for (const std::string& app : apps) {
    const rapidjson::Document status = wait_started(other, app);
    ASSERT_STREQ(status["state"].GetString(), "RUNNING")
        << app << ": " << status["msg"].GetString();
  }
  const rapidjson::Document listed = parse(other.list(R"({"schema":"sortie.list_filter/1"})").out);
  size_t running = 0;
  for (const auto& app : listed["apps"].GetArray()) {
    running += std::string(app["state"].GetString()) == "RUNNING" ? 1 : 0;
  }
  EXPECT_EQ(running, static_cast<size_t>(kApps));

  open_gate(kApps);
  for (const std::string& app : apps) {
    EXPECT_STREQ(scheduler_.wait_terminal(app)["state"].GetString(), "SUCCEEDED") << app;
  }
}

TEST_F(ScaleTest, TwoHundredFiftySixReplicasUnderASoft1024FileLimit) {
  // The supervisor holds 2 pipes and up to 6 log files per replica, so it raises its own soft
  // limit; replicas must still get the limit the submitter had.
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = std::min<rlim_t>(1024, saved.rlim_max);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  expect_wide_app_runs(low.rlim_cur);
  ::setrlimit(RLIMIT_NOFILE, &saved);
}

TEST_F(ScaleTest, TwoHundredFiftySixReplicasUnderAHard1024FileLimit) {
  // A limit the supervisor cannot raise: 256 replicas' log files (1,536) do not fit beside their
  // pipes, so the supervisor keeps only some open and reopens the others when they write again
  // (every replica writes before and after the gate). Without root, the raised hard limit is
  // not restored, which only this test's own process sees (ctest runs one test per process).
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_GE(saved.rlim_max, 1024u) << "this test needs a hard open-file limit of at least 1024";
  const rlimit hard{1024, 1024};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &hard), 0);
  expect_wide_app_runs(1024);
  ::setrlimit(RLIMIT_NOFILE, &saved);
}

TEST_F(ScaleTest, TwoHundredFiftySixReplicasUnderAHard512FileLimitFailWithTheCause) {
  // Finding F5: the replicas' pipes alone use up a hard limit of 512, so the app cannot run; the
  // supervisor used to die writing state.json (no descriptor left) and the app read "supervisor
  // died unexpectedly". It must end FAILED saying which limit stopped it.
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_GE(saved.rlim_max, 512u);
  const rlimit hard{512, 512};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &hard), 0);
  const std::string app = scheduler_.submit(dryrun_input("fds", "[" + gate_role(256) + "]", "{}"));
  ::setrlimit(RLIMIT_NOFILE, &saved);
  ASSERT_FALSE(app.empty());
  open_gate(256);
  const rapidjson::Document done = scheduler_.wait_terminal(app);
  const std::string msg = done["msg"].GetString();
  EXPECT_STREQ(done["state"].GetString(), "FAILED") << msg;
  EXPECT_EQ(msg.find("died unexpectedly"), std::string::npos) << msg;
  EXPECT_NE(msg.find("open-file limit (512"), std::string::npos) << msg;
}

TEST_F(ScaleTest, CancelRightAfterSubmitFromAnotherInstanceLeavesNothingRunning) {
  // The cancelling instance may find the supervisor still starting (no pid on record yet); the
  // app must end CANCELLED either way, its replica never left running.
  for (int i = 0; i < 20; ++i) {
    const std::string app =
        scheduler_.submit(dryrun_input("c" + std::to_string(i), "[" + gate_role(1) + "]", "{}"));
    SchedulerClient other("local_cwd", state_.path());
    const Result cancelled = other.cancel(app);
    ASSERT_EQ(cancelled.status, SORTIE_OK) << cancelled.err;
    const rapidjson::Document status = other.wait_terminal(app);
    EXPECT_STREQ(status["state"].GetString(), "CANCELLED") << status["msg"].GetString();
    for (const auto& replica : status["roles"][0]["replicas"].GetArray()) {
      EXPECT_STRNE(replica["state"].GetString(), "RUNNING");
      // A replica cancelled before its supervisor started it has no pid (null).
      const auto pid = replica.FindMember("pid");
      if (pid != replica.MemberEnd() && pid->value.IsInt64() && pid->value.GetInt64() > 0) {
        EXPECT_TRUE(process_gone(pid->value.GetInt64()));
      }
    }
  }
}

}  // namespace
}  // namespace sortie::local::testing
