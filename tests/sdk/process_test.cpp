#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sortie/error.hpp>
#include <sortie/process.hpp>
#include <thread>

namespace {

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sortie-process-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Polls process_state until it leaves RUNNING (at most 30 s).
  sortie::AppState final_state(const std::string& path) {
    for (int i = 0; i < 3000; ++i) {
      const std::optional<sortie::AppState> state = sortie::process_state(path);
      if (state != sortie::AppState::kRunning) return state.value_or(sortie::AppState::kUnknown);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return sortie::AppState::kRunning;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_F(ProcessTest, ASucceedingCommandEndsSucceededWithItsOutputInTheLog) {
  sortie::start_process({"sh", "-c", "echo out; echo err >&2"}, path("app"));
  EXPECT_EQ(final_state(path("app")), sortie::AppState::kSucceeded);
  EXPECT_EQ(sortie::process_exit_status(path("app")), 0);
  std::ifstream log(path("app") + ".log");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(log), {}), "out\nerr\n");
}

TEST_F(ProcessTest, AFailingCommandEndsFailedWithItsExitStatus) {
  sortie::start_process({"sh", "-c", "exit 3"}, path("app"));
  EXPECT_EQ(final_state(path("app")), sortie::AppState::kFailed);
  EXPECT_EQ(sortie::process_exit_status(path("app")), 3);
}

TEST_F(ProcessTest, ACommandThatCannotStartExits127) {
  sortie::start_process({"/no/such/program"}, path("app"));
  EXPECT_EQ(final_state(path("app")), sortie::AppState::kFailed);
  EXPECT_EQ(sortie::process_exit_status(path("app")), 127);
}

TEST_F(ProcessTest, AStoppedCommandEndsCancelledAndAnEndedOneKeepsItsState) {
  sortie::start_process({"sleep", "600"}, path("sleeper"));
  EXPECT_EQ(sortie::process_state(path("sleeper")), sortie::AppState::kRunning);
  EXPECT_TRUE(sortie::stop_process(path("sleeper")));
  EXPECT_EQ(final_state(path("sleeper")), sortie::AppState::kCancelled);
  EXPECT_EQ(sortie::process_exit_status(path("sleeper")), 128 + SIGTERM);

  sortie::start_process({"true"}, path("done"));
  EXPECT_EQ(final_state(path("done")), sortie::AppState::kSucceeded);
  EXPECT_TRUE(sortie::stop_process(path("done")));
  EXPECT_EQ(sortie::process_state(path("done")), sortie::AppState::kSucceeded);
}

TEST_F(ProcessTest, NothingWasStartedAtAnUnknownPath) {
  EXPECT_EQ(sortie::process_state(path("unknown")), std::nullopt);
  EXPECT_FALSE(sortie::stop_process(path("unknown")));
}

TEST_F(ProcessTest, AnEmptyCommandIsRefused) {
  try {
    sortie::start_process({}, path("app"));
    FAIL() << "no error";
  } catch (const sortie::Error& error) {
    EXPECT_EQ(error.code(), sortie::Code::kInvalidArgument);
  }
}

}  // namespace
