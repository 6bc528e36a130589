// Scale of the local scheduler: a thousand apps alive at once, a 256-replica app under a 1024
// open-file limit, and cancels that race a supervisor still starting. Replicas block on a FIFO
// "gate" (cat opens it and waits), so every one of them is provably running at the same time
// without burning CPU, and all are released at once by opening and closing the gate.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

class ScaleTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::mkfifo(gate_.c_str(), 0600), 0); }

  // Releases every replica blocked in `cat gate`: they see a writer come and go, then EOF.
  void open_gate() {
    const int fd = ::open(gate_.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  std::string gate_role(int replicas) const {
    return R"({"name":"g","entrypoint":"sh","args":["-c","echo replica $0; exec cat )" + gate_ +
           R"(","${replica_id}"],"num_replicas":)" + std::to_string(replicas) + "}";
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
    std::string state;
    rapidjson::Document status;
    do {
      const Result result = other.wait(app, state, 60000);
      ASSERT_EQ(result.status, SORTIE_OK) << result.err;
      status = parse(result.out);
      state = status["state"].GetString();
    } while (state == "SUBMITTED" || state == "PENDING");
    ASSERT_EQ(state, "RUNNING") << app << ": " << status["msg"].GetString();
  }
  const rapidjson::Document listed = parse(other.list(R"({"schema":"sortie.list_filter/1"})").out);
  size_t running = 0;
  for (const auto& app : listed["apps"].GetArray()) {
    running += std::string(app["state"].GetString()) == "RUNNING" ? 1 : 0;
  }
  EXPECT_EQ(running, static_cast<size_t>(kApps));

  open_gate();
  for (const std::string& app : apps) {
    EXPECT_STREQ(scheduler_.wait_terminal(app)["state"].GetString(), "SUCCEEDED") << app;
  }
}

TEST_F(ScaleTest, TwoHundredFiftySixReplicasUnderA1024FileLimit) {
  // The supervisor holds 8 descriptors per replica, so it must raise its own limit; replicas
  // must still get the limit the submitter had.
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = std::min<rlim_t>(1024, saved.rlim_max);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  const std::string app = scheduler_.submit(
      dryrun_input("wide",
                   R"([{"name":"g","entrypoint":"sh","args":["-c","ulimit -n; exec cat )" + gate_ +
                       R"("],"num_replicas":256}])",
                   "{}"));
  ::setrlimit(RLIMIT_NOFILE, &saved);
  ASSERT_FALSE(app.empty());

  std::string state;
  rapidjson::Document status;
  do {
    const Result result = scheduler_.wait(app, state, 60000);
    ASSERT_EQ(result.status, SORTIE_OK) << result.err;
    status = parse(result.out);
    state = status["state"].GetString();
  } while (state != "RUNNING" && state != "FAILED" && state != "SUCCEEDED");
  ASSERT_EQ(state, "RUNNING") << status["msg"].GetString();
  EXPECT_EQ(count_running(status), 256u);

  open_gate();
  const rapidjson::Document done = scheduler_.wait_terminal(app);
  ASSERT_STREQ(done["state"].GetString(), "SUCCEEDED") << done["msg"].GetString();
  std::vector<Line> lines;
  ASSERT_EQ(scheduler_.logs(app, R"({"schema":"sortie.log_request/1"})", &lines).status, SORTIE_OK);
  ASSERT_EQ(lines.size(), 256u);
  std::set<uint32_t> replicas;
  for (const Line& line : lines) {
    EXPECT_EQ(line.data, std::to_string(low.rlim_cur) + "\n");
    replicas.insert(line.replica_id);
  }
  EXPECT_EQ(replicas.size(), 256u);
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
      if (replica["pid"].GetInt64() > 0) {
        EXPECT_TRUE(process_gone(replica["pid"].GetInt64()));
      }
    }
  }
}

}  // namespace
}  // namespace sortie::local::testing
