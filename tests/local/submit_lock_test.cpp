// A submission killed part-way (finding F6): schedule() was killed after it created the app's
// files but before a supervisor recorded itself. Such an app stayed SUBMITTED forever; now it
// reads FAILED once nobody holds its submission lock (plugins/local/src/submit_lock.hpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

class SubmitLockTest : public ::testing::Test {
 protected:
  // The files schedule() writes before it starts the supervisor, and nothing after.
  std::string leave_half_submitted_app(const std::string& app_id) {
    const std::string dir = state_.path() + "/logs/test/" + app_id;
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/state.json")
        << R"({"schema":"sortie.local_state/1","app_id":")" << app_id
        << R"(","state":"SUBMITTED","num_restarts":0,"msg":"","name":"app","session":"test",)"
        << R"("supervisor":{"pid":0,"start_time":0},"containment":"",)"
        << R"("roles":[{"role":"w","replicas":[{"id":0,"state":"PENDING","pid":null,"pgid":0,)"
        << R"("exit_code":null,"restarts":0,"started_at":null,"finished_at":null,"msg":""}]}]})";
    std::filesystem::create_directories(state_.path() + "/apps");
    std::filesystem::create_directory_symlink(dir, state_.path() + "/apps/" + app_id);
    return dir;
  }

  TempDir state_;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_F(SubmitLockTest, KilledSubmissionReadsFailedWithTheReason) {
  leave_half_submitted_app("half");
  const rapidjson::Document status = parse(scheduler_.describe("half").out);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_NE(std::string(status["msg"].GetString()).find("submission interrupted"),
            std::string::npos)
      << status["msg"].GetString();
  // A reader reports it without writing: state.json is as the submitter left it.
  std::ifstream file(state_.path() + "/logs/test/half/state.json");
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_STREQ(parse(text.str())["state"].GetString(), "SUBMITTED");
}

TEST_F(SubmitLockTest, SubmissionUnderWayStaysSubmitted) {
  const std::string dir = leave_half_submitted_app("busy");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const rapidjson::Document submitted = parse(scheduler_.describe("busy").out);
  EXPECT_STREQ(submitted["state"].GetString(), "SUBMITTED");
  // No supervisor yet: its pid is unknown, so null as the SDK writes an unknown pid (it said 0).
  EXPECT_TRUE(submitted["metadata"]["supervisor_pid"].IsNull());
  EXPECT_TRUE(submitted["roles"][0]["replicas"][0]["pid"].IsNull());
  EXPECT_TRUE(submitted["roles"][0]["replicas"][0]["started_at"].IsNull());
  ::close(fd);
  EXPECT_STREQ(parse(scheduler_.describe("busy").out)["state"].GetString(), "FAILED");
}

}  // namespace
}  // namespace sortie::local::testing
