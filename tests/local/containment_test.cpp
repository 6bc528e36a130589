// No escapees (finding F4): every process an app starts, setsid or double fork included, dies
// with the app even when its supervisor is SIGKILLed, under each containment
// (plugins/local/src/containment.hpp), and a cgroup-contained app leaves no cgroup behind.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "app_cgroup.hpp"
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

// Whether a child may enter a new PID namespace, as the supervisor's starter does.
bool pid_namespaces_allowed() {
  const pid_t child = ::fork();
  if (child == 0) {
    ::_exit(::unshare(CLONE_NEWPID) == 0 || ::unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0 ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class ContainmentTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (std::string(GetParam()) == "pid_namespace") {
      SORTIE_REQUIRE_ENGINE(
          pid_namespaces_allowed(),
          "this kernel refuses PID namespaces (and user namespaces to hold them)");
    }
    if (std::string(GetParam()) == "cgroup") {
      std::string why;
      own_cgroup_ = own_cgroup_dir(&why);
      SORTIE_REQUIRE_ENGINE(!own_cgroup_.empty() && ::access(own_cgroup_.c_str(), W_OK) == 0,
                            "no writable cgroup v2 cgroup: " + why);
    }
    ::setenv("SORTIE_LOCAL_CONTAINMENT", GetParam(), 1);
  }
  void TearDown() override {
    ::unsetenv("SORTIE_LOCAL_CONTAINMENT");
    // Every app has ended: its cgroup is gone, whoever killed it. Only this test's apps are
    // looked at: other tests' apps may have cgroups of their own in the same parent meanwhile.
    for (const std::string& app_id : submitted_) {
      const std::string cgroup = cgroup_of(app_id);
      EXPECT_TRUE(cgroup.empty() || ::access(cgroup.c_str(), F_OK) != 0)
          << cgroup << " was left behind";
    }
  }

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
    submitted_.push_back(app_id);
    return escapee;
  }

  rapidjson::Document recorded_state(const std::string& app_id) {
    std::ifstream file(state_json_path(state_.path() + "/logs/test/" + app_id));
    std::stringstream text;
    text << file.rdbuf();
    return parse(text.str());
  }

  int64_t supervisor_of(const std::string& app_id) {
    return recorded_state(app_id)["supervisor"]["pid"].GetInt64();
  }

  // The app's cgroup ("" unless contained by one), which holds its live processes.
  std::string cgroup_of(const std::string& app_id) {
    const rapidjson::Document state = recorded_state(app_id);
    return state.HasMember("cgroup") ? state["cgroup"].GetString() : "";
  }

  std::string own_cgroup_;
  std::vector<std::string> submitted_;  // the ids of the apps this test submitted
  TempDir state_;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_P(ContainmentTest, StatusSaysWhichGuaranteeTheAppHas) {
  const std::string escapee = submit_escaping_app("contained-guarantee");
  const rapidjson::Document running = scheduler_.wait_running("contained-guarantee");
  const std::string msg = running["msg"].GetString();
  EXPECT_EQ(running["metadata"]["containment"].GetString(), std::string(GetParam()));
  const std::map<std::string, std::string> guarantee{{"pid_namespace", "PID namespace"},
                                                     {"cgroup", "cgroup v2 cgroup.kill"},
                                                     {"process_marker", "environment marker"}};
  EXPECT_NE(msg.find(guarantee.at(GetParam())), std::string::npos) << msg;
  ASSERT_EQ(scheduler_.cancel("contained-guarantee").status, SORTIE_OK);
  scheduler_.wait_terminal("contained-guarantee");
  EXPECT_TRUE(processes_named(escapee).empty());
}

TEST_P(ContainmentTest, NothingSurvivesASigkilledSupervisor) {
  const std::string escapee = submit_escaping_app("contained-killed");
  scheduler_.wait_running("contained-killed");
  ASSERT_TRUE(await_processes(escapee, 3)) << processes_named(escapee).size();
  const std::string cgroup = cgroup_of("contained-killed");
  if (std::string(GetParam()) == "cgroup") {
    // The replica (a shell, then sleep) and the three escapees are in the app's cgroup.
    ASSERT_FALSE(cgroup.empty());
    std::ifstream procs(cgroup + "/cgroup.procs");
    size_t members = 0;
    for (std::string pid; std::getline(procs, pid);) ++members;
    EXPECT_GE(members, 4u);
  }
  ASSERT_EQ(::kill(static_cast<pid_t>(supervisor_of("contained-killed")), SIGKILL), 0);
  if (std::string(GetParam()) == "pid_namespace") {
    // The kernel kills the namespace with its init: no sortie command needed.
    EXPECT_TRUE(await_processes(escapee, 0)) << processes_named(escapee).size() << " survived";
  }
  const rapidjson::Document status = scheduler_.wait_terminal("contained-killed");
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_NE(std::string(status["msg"].GetString()).find("died unexpectedly"), std::string::npos);
  EXPECT_TRUE(await_processes(escapee, 0)) << processes_named(escapee).size() << " survived";
  // The reading command killed the cgroup and removed it.
  if (!cgroup.empty()) {
    EXPECT_NE(::access(cgroup.c_str(), F_OK), 0) << cgroup << " is left";
  }
}

TEST_P(ContainmentTest, NothingSurvivesTheEndOfTheApp) {
  const std::string escapee = submit_escaping_app("contained-ended");
  scheduler_.wait_running("contained-ended");
  ASSERT_TRUE(await_processes(escapee, 3));
  ASSERT_EQ(scheduler_.cancel("contained-ended").status, SORTIE_OK);
  EXPECT_STREQ(scheduler_.wait_terminal("contained-ended")["state"].GetString(), "CANCELLED");
  EXPECT_TRUE(processes_named(escapee).empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, ContainmentTest,
                         ::testing::Values("pid_namespace", "cgroup", "process_marker"));

// Unasked, the first kind the machine allows is used (docs/local-scheduler.md, "No escapees"):
// here a PID namespace, and no cgroup is made beside it.
TEST(ContainmentChoice, APidNamespaceIsPreferredWhereAllowed) {
  SORTIE_REQUIRE_ENGINE(pid_namespaces_allowed(),
                        "this kernel refuses PID namespaces (and user namespaces to hold them)");
  ::unsetenv("SORTIE_LOCAL_CONTAINMENT");
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const std::string role = R"({"name":"w","entrypoint":"sleep","args":["1000"]})";
  ASSERT_EQ(scheduler.submit(dryrun_input("preferred", "[" + role + "]", "{}")), "preferred");
  const rapidjson::Document running = scheduler.wait_running("preferred");
  EXPECT_STREQ(running["metadata"]["containment"].GetString(), "pid_namespace");
  std::ifstream file(state.path() + "/logs/test/preferred/state.json");
  std::stringstream recorded;
  recorded << file.rdbuf();
  EXPECT_FALSE(parse(recorded.str()).HasMember("cgroup")) << recorded.str();
  ASSERT_EQ(scheduler.cancel("preferred").status, SORTIE_OK);
  scheduler.wait_terminal("preferred");
}

TEST(ContainmentChoice, AnUnknownKindIsRefusedNamingTheKinds) {
  ::setenv("SORTIE_LOCAL_CONTAINMENT", "cgroups", 1);
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const std::string role = R"({"name":"w","entrypoint":"true"})";
  const auto dry = scheduler.dryrun(dryrun_input("refused", "[" + role + "]", "{}"));
  // schedule() returns with the supervisor's answer, so the refusal is its error...
  const auto scheduled = scheduler.schedule(dry.out);
  ::unsetenv("SORTIE_LOCAL_CONTAINMENT");
  const std::string kinds =
      "SORTIE_LOCAL_CONTAINMENT='cgroups': must be pid_namespace, cgroup or process_marker";
  EXPECT_NE(scheduled.status, SORTIE_OK);
  EXPECT_NE(scheduled.err.find("app 'refused' did not start: " +
                               std::string("the supervisor could not start: ") + kinds),
            std::string::npos)
      << scheduled.err;
  // ...and the app is recorded FAILED with it.
  const rapidjson::Document status = scheduler.wait_terminal("refused");
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_NE(std::string(status["msg"].GetString()).find(kinds), std::string::npos)
      << status["msg"].GetString();
}

}  // namespace
}  // namespace sortie::local::testing
