// Runtime files under $XDG_RUNTIME_DIR (plugins/local/src/runtime_dir.hpp): where they go, that
// a finished app's state ends up in its app directory, and what a vanished runtime directory
// (a reboot) reads as.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <fstream>
#include <sstream>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Blocks until `pid` has exited, through a pidfd (no sleeping poll).
void wait_exit(int64_t pid) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
  if (fd < 0) return;  // already gone
  pollfd watched{fd, POLLIN, 0};
  EXPECT_EQ(::poll(&watched, 1, 60000), 1) << "pid " << pid << " still runs";
  ::close(fd);
}

class RuntimeDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* previous = std::getenv("XDG_RUNTIME_DIR");
    if (previous != nullptr) saved_ = previous;
    ::chmod(runtime_.path().c_str(), 0700);
    ::setenv("XDG_RUNTIME_DIR", runtime_.path().c_str(), 1);
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("XDG_RUNTIME_DIR", saved_->c_str(), 1);
    } else {
      ::unsetenv("XDG_RUNTIME_DIR");
    }
  }

  std::string submit(const std::string& id, const std::string& script) {
    return scheduler_.submit(dryrun_input(
        id, R"([{"name":"worker","entrypoint":"sh","args":["-c",")" + script + R"("]}])", "{}"));
  }
  std::string app_dir(const std::string& id) const { return state_.path() + "/logs/test/" + id; }
  size_t runtime_entries() const {
    const fs::path root = runtime_.path() + "/sortie";
    if (!fs::exists(root)) return 0;
    return static_cast<size_t>(std::distance(fs::directory_iterator(root), {}));
  }
  // The supervisor pid recorded in the runtime copy of state.json.
  int64_t supervisor_pid(const std::string& id) const {
    const rapidjson::Document state = parse(read_text(app_dir(id) + "/run/state.json"));
    return state["supervisor"]["pid"].GetInt64();
  }

  TempDir runtime_;
  TempDir state_;
  std::optional<std::string> saved_;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_F(RuntimeDirTest, RunningAppKeepsItsRuntimeFilesUnderXdgRuntimeDir) {
  const std::string app = submit("long", "sleep 60");
  scheduler_.wait_running(app);
  const std::string link = app_dir(app) + "/run";
  ASSERT_TRUE(fs::is_symlink(link));
  const std::string runtime_dir = fs::read_symlink(link).string();
  EXPECT_EQ(runtime_dir.rfind(runtime_.path() + "/sortie/long-", 0), 0u) << runtime_dir;
  struct stat info {};
  ASSERT_EQ(::stat(runtime_dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  EXPECT_TRUE(fs::is_fifo(runtime_dir + "/notify"));
  EXPECT_NE(read_text(runtime_dir + "/state.json").find("\"RUNNING\""), std::string::npos);
  // Nothing transient on the persistent disk; the request and logs stay there.
  EXPECT_FALSE(fs::exists(app_dir(app) + "/state.json"));
  EXPECT_FALSE(fs::exists(app_dir(app) + "/notify"));
  EXPECT_TRUE(fs::exists(app_dir(app) + "/request.json"));

  const int64_t supervisor = supervisor_pid(app);
  ASSERT_EQ(scheduler_.cancel(app).status, SORTIE_OK);
  EXPECT_STREQ(scheduler_.wait_terminal(app)["state"].GetString(), "CANCELLED");
  wait_exit(supervisor);
  // Once ended, the final state is on disk and the runtime directory is gone; the link stays,
  // dangling (docs/local-scheduler.md, "Runtime files").
  EXPECT_NE(read_text(app_dir(app) + "/state.json").find("\"CANCELLED\""), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_FALSE(fs::exists(runtime_dir));
  EXPECT_EQ(runtime_entries(), 0u);
  EXPECT_STREQ(parse(scheduler_.describe(app).out)["state"].GetString(), "CANCELLED");
  // Should another app's runtime directory ever get that name, the ended app still reads its own.
  fs::create_directory(runtime_dir);
  std::string running = read_text(app_dir(app) + "/state.json");
  for (size_t at; (at = running.find("CANCELLED")) != std::string::npos;) {
    running.replace(at, 9, "RUNNING");
  }
  std::ofstream(runtime_dir + "/state.json") << running;
  EXPECT_STREQ(parse(scheduler_.describe(app).out)["state"].GetString(), "CANCELLED");
  fs::remove_all(runtime_dir);
}

TEST_F(RuntimeDirTest, FinishedAppReadsTheSameFromItsAppDirectory) {
  const std::string app = submit("quick", "echo hello; exit 3");
  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  const std::string exit_code = "\"exit_code\":3";
  // The supervisor moves the state after waking the waiters: a describe() in between reads the
  // runtime copy, one after reads the app directory's; both say the same.
  for (int round = 0; round < 2; ++round) {
    const std::string described = scheduler_.describe(app).out;
    EXPECT_NE(described.find(exit_code), std::string::npos) << described;
  }
  EXPECT_EQ(read_text(app_dir(app) + "/worker/0/stdout.log"), "hello\n");
}

TEST_F(RuntimeDirTest, VanishedRuntimeDirectoryReadsAsFailedNamingIt) {
  const std::string app = submit("rebooted", "sleep 60");
  scheduler_.wait_running(app);
  const std::string runtime_dir = fs::read_symlink(app_dir(app) + "/run").string();
  const int64_t supervisor = supervisor_pid(app);
  const rapidjson::Document state = parse(read_text(runtime_dir + "/state.json"));
  const int64_t replica = state["roles"][0]["replicas"][0]["pid"].GetInt64();
  // What a reboot does: every process is gone, and so is the tmpfs. The supervisor first: one
  // that saw its replica die would record that end before the runtime directory goes.
  for (const int64_t pid : {supervisor, replica}) {
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    wait_exit(pid);
  }
  fs::remove_all(runtime_dir);

  const rapidjson::Document status = scheduler_.wait_terminal(app);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  const std::string msg = status["msg"].GetString();
  EXPECT_NE(msg.find("runtime directory " + runtime_dir + " vanished"), std::string::npos) << msg;
  EXPECT_NE(msg.find(app_dir(app)), std::string::npos) << msg;
  EXPECT_STREQ(status["roles"][0]["replicas"][0]["state"].GetString(), "FAILED");
  const Result logs = scheduler_.describe(app);
  EXPECT_EQ(logs.status, SORTIE_OK) << logs.err;
}

TEST_F(RuntimeDirTest, RuntimeDirectoryVanishingUnderALiveSupervisorMovesItsStateToTheAppDir) {
  const std::string app = submit("loggedout", "sleep 60");
  scheduler_.wait_running(app);
  const std::string runtime_dir = fs::read_symlink(app_dir(app) + "/run").string();
  const int64_t supervisor = supervisor_pid(app);
  fs::remove_all(runtime_dir);  // what a logout does to $XDG_RUNTIME_DIR
  ASSERT_EQ(::kill(static_cast<pid_t>(supervisor), SIGTERM), 0);
  wait_exit(supervisor);  // instead of retrying the vanished directory for an hour
  EXPECT_FALSE(fs::exists(app_dir(app) + "/run"));
  EXPECT_NE(read_text(app_dir(app) + "/state.json").find("\"CANCELLED\""), std::string::npos);
  EXPECT_STREQ(parse(scheduler_.describe(app).out)["state"].GetString(), "CANCELLED");
}

TEST_F(RuntimeDirTest, RuntimeDirNotPrivateLeavesTheFilesInTheAppDirectory) {
  ::chmod(runtime_.path().c_str(), 0755);  // not what the XDG spec promises: not trusted
  const std::string app = submit("shared", "exit 0");
  EXPECT_STREQ(scheduler_.wait_terminal(app)["state"].GetString(), "SUCCEEDED");
  EXPECT_FALSE(fs::exists(app_dir(app) + "/run"));
  EXPECT_TRUE(fs::is_fifo(app_dir(app) + "/notify"));
  EXPECT_TRUE(fs::exists(app_dir(app) + "/state.json"));
  EXPECT_EQ(runtime_entries(), 0u);
}

}  // namespace
}  // namespace sortie::local::testing
