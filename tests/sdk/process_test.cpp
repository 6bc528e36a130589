#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

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

// Issue 25: the supervisor was forked without an exec and kept every descriptor of its caller,
// so `x=$(sortie run -s minimal -- sleep 3)` waited for the command. A pipe's write end the
// caller leaves inheritable must be closed everywhere once the caller closes its own.
TEST_F(ProcessTest, TheCallersDescriptorsAreNotKeptByWhatItStarts) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);  // inheritable, as a shell's stdout is
  sortie::start_process({"sleep", "30"}, path("sleeper"));
  ::close(ends[1]);
  pollfd readable{ends[0], POLLIN, 0};
  ASSERT_EQ(::poll(&readable, 1, 10'000), 1) << "the write end is still open after 10 s";
  char byte = 0;
  EXPECT_EQ(::read(ends[0], &byte, 1), 0);  // end of file: no one holds the write end
  ::close(ends[0]);
  EXPECT_EQ(sortie::process_state(path("sleeper")), sortie::AppState::kRunning);
  EXPECT_TRUE(sortie::stop_process(path("sleeper")));
  EXPECT_EQ(final_state(path("sleeper")), sortie::AppState::kCancelled);
}

// A replica's env is set over the caller's, byte for byte, and replica_command substitutes the
// P-12 macros in args and env values.
TEST_F(ProcessTest, AReplicaRunsWithItsOwnArgsAndEnv) {
  sortie::Role role;
  role.name = "trainer";
  role.entrypoint = "sh";
  role.args = {"-c", "printf '%s|%s|%s' \"$1\" \"$RANK\" \"$HOME\"", "sh",
               "${role_name}.${replica_id}"};
  role.env = {{"RANK", "${replica_id} of ${num_replicas} 'q' \"d\""}, {"HOME", "/replaced"}};
  role.num_replicas = 4;
  const sortie::ReplicaCommand command = sortie::replica_command(role, "app-1", 2);
  ASSERT_EQ(command.argv.size(), 5u);
  EXPECT_EQ(command.argv[4], "trainer.2");
  sortie::start_process(command.argv, path("replica"), command.env);
  EXPECT_EQ(final_state(path("replica")), sortie::AppState::kSucceeded);
  std::ifstream log(path("replica") + ".log");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(log), {}),
            "trainer.2|2 of 4 'q' \"d\"|/replaced");
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
