// No escapees (finding F4): every process an app starts, setsid or double fork included, dies
// with the app even when its supervisor is SIGKILLed, under either containment
// (plugins/local/src/containment.hpp).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine_required.hpp"
#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

// Processes whose argv[0] is `program` (the escapees are started through a uniquely named link).
std::vector<pid_t> processes_named(const std::string& program) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  while (const dirent* entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream file(std::string("/proc/") + entry->d_name + "/cmdline");
    std::string argv0;
    std::getline(file, argv0, '\0');
    const auto pid = static_cast<pid_t>(std::stol(entry->d_name));
    if (argv0 == program && !process_gone(pid)) found.push_back(pid);
  }
  ::closedir(proc);
  return found;
}

// Polls until `count` processes are named `program`; true if that happened within a minute.
bool await_processes(const std::string& program, size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (processes_named(program).size() != count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

class ContainmentTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (std::string(GetParam()) == "pid_namespace") {
      SORTIE_REQUIRE_ENGINE(
          pid_namespaces_allowed(),
          "this kernel refuses PID namespaces (and user namespaces to hold them)");
    }
    ::setenv("SORTIE_LOCAL_CONTAINMENT", GetParam(), 1);
  }
  // Whether a child may enter a new PID namespace, as the supervisor's starter does.
  static bool pid_namespaces_allowed() {
    const pid_t child = ::fork();
    if (child == 0) {
      ::_exit(::unshare(CLONE_NEWPID) == 0 || ::unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  void TearDown() override { ::unsetenv("SORTIE_LOCAL_CONTAINMENT"); }

  // An app whose replica leaves three processes behind that left its process group: one in its
  // own session, one double-forked in its own session, one double-forked in the replica's
  // session but its own group. Returns the name they run under.
  std::string submit_escaping_app(const std::string& app_id) {
    const std::string escapee = state_.path() + "/escapee-" + app_id;
    EXPECT_EQ(::symlink("/bin/sleep", escapee.c_str()), 0);
    const std::string script = "E=" + escapee +
                               "; setsid $E 1000 </dev/null >/dev/null 2>&1 &"
                               " (setsid sh -c \"$E 1000 &\" </dev/null >/dev/null 2>&1 &);"
                               " (set -m; $E 1000 </dev/null >/dev/null 2>&1 &);"
                               " exec sleep 1000";
    rapidjson::StringBuffer quoted;
    rapidjson::Writer<rapidjson::StringBuffer> writer(quoted);
    writer.String(script.c_str());
    const std::string role =
        R"({"name":"w","entrypoint":"sh","args":["-c",)" + std::string(quoted.GetString()) + "]}";
    EXPECT_EQ(scheduler_.submit(dryrun_input(app_id, "[" + role + "]", "{}")), app_id);
    return escapee;
  }

  int64_t supervisor_of(const std::string& app_id) {
    std::ifstream file(state_json_path(state_.path() + "/logs/test/" + app_id));
    std::stringstream text;
    text << file.rdbuf();
    return parse(text.str())["supervisor"]["pid"].GetInt64();
  }

  TempDir state_;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_P(ContainmentTest, StatusSaysWhichGuaranteeTheAppHas) {
  const std::string escapee = submit_escaping_app("guarantee");
  const rapidjson::Document running = scheduler_.wait_running("guarantee");
  const std::string msg = running["msg"].GetString();
  EXPECT_EQ(running["metadata"]["containment"].GetString(), std::string(GetParam()));
  EXPECT_NE(
      msg.find(std::string(GetParam()) == "pid_namespace" ? "PID namespace" : "environment marker"),
      std::string::npos)
      << msg;
  ASSERT_EQ(scheduler_.cancel("guarantee").status, SORTIE_OK);
  scheduler_.wait_terminal("guarantee");
  EXPECT_TRUE(processes_named(escapee).empty());
}

TEST_P(ContainmentTest, NothingSurvivesASigkilledSupervisor) {
  const std::string escapee = submit_escaping_app("killed");
  scheduler_.wait_running("killed");
  ASSERT_TRUE(await_processes(escapee, 3)) << processes_named(escapee).size();
  ASSERT_EQ(::kill(static_cast<pid_t>(supervisor_of("killed")), SIGKILL), 0);
  if (std::string(GetParam()) == "pid_namespace") {
    // The kernel kills the namespace with its init: no sortie command needed.
    EXPECT_TRUE(await_processes(escapee, 0)) << processes_named(escapee).size() << " survived";
  }
  const rapidjson::Document status = scheduler_.wait_terminal("killed");
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_NE(std::string(status["msg"].GetString()).find("died unexpectedly"), std::string::npos);
  EXPECT_TRUE(await_processes(escapee, 0)) << processes_named(escapee).size() << " survived";
}

TEST_P(ContainmentTest, NothingSurvivesTheEndOfTheApp) {
  const std::string escapee = submit_escaping_app("ended");
  scheduler_.wait_running("ended");
  ASSERT_TRUE(await_processes(escapee, 3));
  ASSERT_EQ(scheduler_.cancel("ended").status, SORTIE_OK);
  EXPECT_STREQ(scheduler_.wait_terminal("ended")["state"].GetString(), "CANCELLED");
  EXPECT_TRUE(processes_named(escapee).empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, ContainmentTest,
                         ::testing::Values("pid_namespace", "process_marker"));

}  // namespace
}  // namespace sortie::local::testing
