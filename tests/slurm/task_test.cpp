// sortie-slurm-task, the wrapper srun starts for each replica, run directly (no cluster needed):
// an attempt ends with every process of its replica, not just the program's main process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace sortie::slurm::testing {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

bool alive(const std::string& pid_file) {
  const std::string pid = read_file(pid_file);
  return !pid.empty() && (::kill(std::stoi(pid), 0) == 0 || errno != ESRCH);
}

class SlurmTask : public ::testing::Test {
 protected:
  // Runs the task for replica 0 of role "main" with `script` as `sh -c`; returns its exit code.
  int run_task(const std::string& script) {
    const std::string tasks = dir_.path() + "/job/tasks/main";
    std::filesystem::create_directories(tasks);
    std::ofstream(tasks + "/0.argv", std::ios::binary)
        << "sh" << '\0' << "-c" << '\0' << script << '\0';
    std::ofstream(tasks + "/0.env", std::ios::binary) << "WORK=" << dir_.path() << '\0';
    const std::string command = "env -u SLURM_PROCID -u SORTIE_SLURM_UNIT -u SORTIE_ATTEMPT '" +
                                std::string(SORTIE_SLURM_TASK) + "' '" + dir_.path() +
                                "/job' main 2>" + dir_.path() + "/task.err";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string attempt_file(const std::string& name) {
    return read_file(dir_.path() + "/job/logs/main/0/attempt-0/" + name);
  }
  void TearDown() override {
    for (const char* name : {"/setsid.pid", "/stubborn.pid"}) {
      const std::string pid = read_file(dir_.path() + name);
      if (!pid.empty()) ::kill(std::stoi(pid), SIGKILL);
    }
  }

  sortie::testing::TempDir dir_{"slurm-task"};
};

// The issue-31 shape (a torchrun agent killed, its workers left training): the program ends
// while processes it started run on, one holding its pipes, one in a session of its own
// (setsid) that closed them, one that ignores SIGTERM. The task ends them all (SIGTERM, then
// SIGKILL after the grace) before it records the program's exit, keeps what they print while
// they stop, and exits as the program did.
TEST_F(SlurmTask, TheAttemptEndsWithEveryProcessTheProgramLeftRunning) {
  const int code = run_task(
      "(trap 'echo holder-stopped; exit 0' TERM; touch $WORK/holder.ready; sleep 60 & wait; "
      "echo holder-survived >$WORK/survived) & "
      "setsid sh -c 'echo $$ >$WORK/setsid.pid; exec sleep 60' </dev/null >/dev/null 2>&1 & "
      "sh -c 'trap \"\" TERM; echo $$ >$WORK/stubborn.pid; exec sleep 60' & "
      "until [ -e $WORK/holder.ready ] && [ -s $WORK/setsid.pid ] && [ -s $WORK/stubborn.pid ]; "
      "do sleep 0.01; done; echo main-done; exit 3");
  EXPECT_EQ(code, 3) << read_file(dir_.path() + "/task.err");
  EXPECT_EQ(attempt_file("exit").substr(0, 4), "3 0 ");
  EXPECT_FALSE(alive(dir_.path() + "/setsid.pid"));
  EXPECT_FALSE(alive(dir_.path() + "/stubborn.pid"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/survived"));
  EXPECT_EQ(attempt_file("stdout.log"), "main-done\nholder-stopped\n");
  EXPECT_NE(read_file(dir_.path() + "/task.err")
                .find("sortie-slurm-task: sent SIGKILL to 1 process(es) left running"),
            std::string::npos)
      << read_file(dir_.path() + "/task.err");
}

}  // namespace
}  // namespace sortie::slurm::testing
