// sortie/session/process_liveness.hpp (issue 26 A6): a process that exited, was reaped, or is
// reaped while its /proc file is being read, is gone; none of these throws.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <sortie/session/process_liveness.hpp>
#include <sortie/session/session.hpp>
#include <string>
#include <thread>

namespace sortie::session {
namespace {

pid_t exited_child() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  return child;
}

TEST(ProcessLivenessTest, ThisProcessRunsSinceItStarted) {
  const std::optional<int64_t> started = process_started_at(::getpid());
  ASSERT_TRUE(started.has_value());
  EXPECT_LE(*started, now_ns());
  EXPECT_TRUE(running_since(::getpid(), now_ns()));
  EXPECT_TRUE(same_process_running(::getpid(), *started));
  EXPECT_FALSE(same_process_running(::getpid(), *started - 60'000'000'000));
}

TEST(ProcessLivenessTest, AZombieAndAReapedChildAreGone) {
  const pid_t child = exited_child();
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);  // a zombie now
  EXPECT_FALSE(process_started_at(child).has_value());
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  EXPECT_FALSE(process_started_at(child).has_value());
  EXPECT_FALSE(running_since(child, now_ns()));
}

// The zombie's /proc/PID/stat opens, and is reaped before the read: the read fails with ESRCH,
// which an ifstream turned into std::ios_base::failure (issue 26: 5 of 1,000 concurrent `sortie
// run` exited 3 with "basic_filebuf::underflow error reading the file: No such process").
TEST(ProcessLivenessTest, AChildReapedWhileItIsReadIsGoneWithoutThrowing) {
  int thrown = 0;
  std::string first_error;
  for (int round = 0; round < 200; ++round) {
    const pid_t child = exited_child();
    std::atomic<bool> reaped{false};
    std::thread reader([&] {
      while (!reaped) {
        try {
          process_started_at(child);
        } catch (const std::exception& error) {
          if (thrown++ == 0) first_error = error.what();
        }
      }
    });
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    EXPECT_EQ(::waitpid(child, nullptr, 0), child);
    reaped = true;
    reader.join();
    EXPECT_FALSE(process_started_at(child).has_value());
  }
  EXPECT_EQ(thrown, 0) << "first: " << first_error;
}

}  // namespace
}  // namespace sortie::session
