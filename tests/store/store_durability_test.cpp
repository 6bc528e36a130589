// Tests of sortie/store/store.hpp across processes and failures: many concurrent writers, a writer
// killed with SIGKILL mid-transaction, a read-only directory and a full disk. The last two mount
// a tmpfs inside a private user and mount namespace, so they need no privileges (and hold even
// for root, whom directory permissions do not stop); they are skipped where user namespaces are
// disabled.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/store/store.hpp>
#include <string>

#include "store_test_support.hpp"

// Outside CI a machine without user namespaces skips these cases; in CI (CI=true) that is a
// failure, so a run can never pass by skipping them silently.
#define SKIP_UNLESS_CI(reason)                                        \
  do {                                                                \
    const char* ci = std::getenv("CI");                               \
    if (ci != nullptr && std::string(ci) == "true") FAIL() << reason; \
    GTEST_SKIP() << reason;                                           \
  } while (false)
namespace sortie::store {
namespace {

using testing::RawDatabase;
using testing::sample_record;
using testing::sample_status;
using testing::ScratchDir;

// Exit code of a child that could not set up its namespace: the test is skipped, not failed.
constexpr int kNoNamespace = 77;

// Runs `body` in a forked child and returns its exit code (or 128 + signal). The child never
// returns into the test framework.
int run_in_child(const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    int code = 1;
    try {
      code = body();
    } catch (const std::exception& error) {
      std::cerr << "child " << getpid() << ": " << error.what() << "\n";
    }
    std::cerr.flush();
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Writes all of `text` to `fd` (a pipe to the parent).
void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  return text;
}

// The lifecycle every writer child runs for each of its apps, one transaction per step.
void run_lifecycle(AppStore& store, const std::string& app_id, int64_t pid,
                   const std::function<void()>& after_each_commit) {
  const AppRecord record = sample_record(app_id);
  store.record_submission(record);
  after_each_commit();
  AppStatus running = sample_status(app_id, AppState::kRunning, 2);
  running.roles[0].replicas[0].pid = pid;
  store.record_status(record.handle, running);
  after_each_commit();
  AppStatus done = sample_status(app_id, AppState::kSucceeded, 2);
  done.roles[0].replicas[0].pid = pid;
  done.roles[0].replicas[0].exit_code = 0;
  store.record_status(record.handle, done);
  after_each_commit();
}

// Checks that an app is in one of the states run_lifecycle leaves between commits, with the rows
// that state implies. Returns the number of lifecycle steps it had committed (1 to 3).
int check_lifecycle_consistent(const AppStore& store, const std::string& app_id) {
  const std::string handle = "local://default/" + app_id;
  const std::optional<AppStatus> status = store.last_status(handle);
  if (!status) {
    ADD_FAILURE() << handle << " is missing";
    return 0;
  }
  std::vector<AppEvent> events;  // those of the lifecycle, without other kinds (notes)
  for (AppEvent& event : store.events(handle)) {
    if (event.kind == "submitted" || event.kind == "state") events.push_back(std::move(event));
  }
  if (events.empty() || status->roles.empty()) {
    ADD_FAILURE() << handle << " has no submitted event or no role";
    return 0;
  }
  EXPECT_EQ(events.front().kind, "submitted") << handle;
  const size_t replicas = status->roles.at(0).replicas.size();
  switch (status->state) {
    case AppState::kSubmitted:
      EXPECT_EQ(replicas, 0u) << handle;
      EXPECT_EQ(events.size(), 1u) << handle;
      return 1;
    case AppState::kRunning:
      EXPECT_EQ(replicas, 2u) << handle;
      EXPECT_EQ(events.size(), 2u) << handle;
      return 2;
    case AppState::kSucceeded:
      EXPECT_EQ(replicas, 2u) << handle;
      EXPECT_EQ(status->roles[0].replicas[0].exit_code, std::optional<int>(0)) << handle;
      EXPECT_EQ(events.size(), 3u) << handle;
      EXPECT_EQ(events.back().detail, "SUCCEEDED") << handle;
      return 3;
    default:
      ADD_FAILURE() << handle << " is in state " << model::to_string(status->state);
      return 0;
  }
}

TEST(AppStoreDurabilityTest, FiftyConcurrentProcessesLoseNoWrite) {
  ScratchDir scratch;
  const std::string path = scratch.path() + "/sortie.db";  // created by the racing children
  constexpr int kProcesses = 50;
  constexpr int kAppsPerProcess = 4;
  std::vector<pid_t> children;
  for (int child = 0; child < kProcesses; ++child) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        auto store = AppStore::open(path);  // each process its own connection, after fork
        for (int app = 0; app < kAppsPerProcess; ++app) {
          const std::string app_id = "c" + std::to_string(child) + "-" + std::to_string(app);
          run_lifecycle(*store, app_id, child * 100 + app, [] {});
          store->add_event("local://default/" + app_id, "note", std::to_string(child));
        }
      } catch (const std::exception& error) {
        std::cerr << "child " << child << ": " << error.what() << "\n";
        code = 1;
      }
      _exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << pid << " failed";
  }

  auto store = AppStore::open(path);
  EXPECT_EQ(store->list({}).size(), static_cast<size_t>(kProcesses * kAppsPerProcess));
  std::set<int64_t> event_ids;
  for (int child = 0; child < kProcesses; ++child) {
    for (int app = 0; app < kAppsPerProcess; ++app) {
      const std::string app_id = "c" + std::to_string(child) + "-" + std::to_string(app);
      EXPECT_EQ(check_lifecycle_consistent(*store, app_id), 3);
      const std::string handle = "local://default/" + app_id;
      EXPECT_EQ(store->last_status(handle)->roles[0].replicas[0].pid,
                std::optional<int64_t>(child * 100 + app));
      const std::vector<AppEvent> events = store->events(handle);
      ASSERT_EQ(events.size(), 4u);
      EXPECT_EQ(events[3].detail, std::to_string(child));
      for (const AppEvent& event : events) event_ids.insert(event.id);
    }
  }
  EXPECT_EQ(event_ids.size(), static_cast<size_t>(kProcesses * kAppsPerProcess * 4));
  EXPECT_EQ(RawDatabase(path).scalar("PRAGMA integrity_check"), "ok");
}

// A writer records lifecycles in a loop and reports each commit on a pipe; the parent kills it
// with SIGKILL after `kill_after` commits, mostly in the middle of the next transaction.
class AppStoreKillTest : public ::testing::TestWithParam<int> {};

TEST_P(AppStoreKillTest, SigkillMidWriteKeepsEveryCommit) {
  ScratchDir scratch;
  const std::string path = scratch.path() + "/sortie.db";
  AppStore::open(path);
  // Three rounds on the same file, so recovery after a kill is itself followed by a kill.
  std::map<std::string, int> committed_steps;
  for (int round = 0; round < 3; ++round) {
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(pipe_fds[0]);
      try {
        auto store = AppStore::open(path);
        for (int app = 0;; ++app) {
          const std::string app_id = "r" + std::to_string(round) + "-" + std::to_string(app);
          run_lifecycle(*store, app_id, app, [&] { write_all(pipe_fds[1], app_id + "\n"); });
        }
      } catch (const std::exception& error) {
        std::cerr << "writer: " << error.what() << "\n";
      }
      _exit(1);
    }
    close(pipe_fds[1]);
    int commits = 0;
    std::string pending;
    while (commits < GetParam()) {
      char c;
      ASSERT_EQ(::read(pipe_fds[0], &c, 1), 1) << "the writer died before being killed";
      if (c != '\n') {
        pending += c;
        continue;
      }
      ++committed_steps[pending];
      pending.clear();
      ++commits;
    }
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    // Commits reported after our count was reached are committed too.
    std::string rest = pending + read_all(pipe_fds[0]);
    close(pipe_fds[0]);
    for (size_t start = 0, end; (end = rest.find('\n', start)) != std::string::npos;
         start = end + 1) {
      ++committed_steps[rest.substr(start, end - start)];
    }

    ASSERT_EQ(RawDatabase(path).scalar("PRAGMA integrity_check"), "ok") << "round " << round;
    auto store = AppStore::open(path);
    size_t apps_of_round = 0;
    for (const AppRecord& record : store->list({})) {
      if (record.app_id.rfind("r" + std::to_string(round) + "-", 0) != 0) continue;
      ++apps_of_round;
      // At least what the writer saw committed; at most one step more (committed, unreported).
      const int steps = check_lifecycle_consistent(*store, record.app_id);
      const int reported = committed_steps[record.app_id];
      EXPECT_GE(steps, reported) << record.app_id;
      EXPECT_LE(steps, reported + 1) << record.app_id;
    }
    for (const auto& [app_id, steps] : committed_steps) {
      if (app_id.rfind("r" + std::to_string(round) + "-", 0) != 0) continue;
      EXPECT_TRUE(store->get("local://default/" + app_id).has_value()) << app_id << " was lost";
    }
    EXPECT_GE(apps_of_round, static_cast<size_t>((GetParam() + 2) / 3));
  }
}

INSTANTIATE_TEST_SUITE_P(KillPoints, AppStoreKillTest, ::testing::Values(1, 2, 3, 7, 40, 150));

// Runs `body` in a child with a tmpfs of `size` mounted on `dir` in private user and mount
// namespaces. Returns the child's exit code; kNoNamespace when namespaces are unavailable.
int run_with_tmpfs(const std::string& dir, const std::string& size, bool read_only,
                   const std::function<int()>& body) {
  return run_in_child([&] {
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return kNoNamespace;
    std::ofstream("/proc/self/setgroups") << "deny";
    std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
    std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
    if (mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return kNoNamespace;
    const unsigned long flags = read_only ? MS_RDONLY : 0;
    const std::string options = "size=" + size + ",mode=0700";
    if (mount("tmpfs", dir.c_str(), "tmpfs", flags, options.c_str()) != 0) return kNoNamespace;
    return body();
  });
}

// The error `action` throws, as "STATUS_CODE|message", sent to the parent through `fd`.
int report_error(int fd, const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    write_all(fd, std::to_string(error.status()) + "|" + error.what());
    return 0;
  }
  write_all(fd, "no error");
  return 0;
}

TEST(AppStoreFailureTest, ReadOnlyDirectoryNamesThePathAndTheFix) {
  ScratchDir scratch;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const std::string mount_point = scratch.path();
  const int code = run_with_tmpfs(mount_point, "1m", /*read_only=*/true, [&] {
    return report_error(pipe_fds[1],
                        [&] { AppStore::open(mount_point + "/state/sortie/sortie.db"); });
  });
  close(pipe_fds[1]);
  const std::string reported = read_all(pipe_fds[0]);
  close(pipe_fds[0]);
  if (code == kNoNamespace) SKIP_UNLESS_CI("user namespaces are not available here");
  ASSERT_EQ(code, 0);
  EXPECT_EQ(reported.substr(0, reported.find('|')), std::to_string(SORTIE_PERMISSION_DENIED))
      << reported;
  EXPECT_NE(reported.find("cannot create directory " + mount_point + "/state"), std::string::npos)
      << reported;
  EXPECT_NE(reported.find("Read-only file system"), std::string::npos) << reported;
  EXPECT_NE(reported.find("set SORTIE_STATE_DIR to a writable directory"), std::string::npos)
      << reported;
}

TEST(AppStoreFailureTest, ExistingReadOnlyDirectoryWithoutStore) {
  ScratchDir scratch;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const std::string mount_point = scratch.path();
  const int code = run_with_tmpfs(mount_point, "1m", /*read_only=*/false, [&] {
    if (mkdir((mount_point + "/state").c_str(), 0700) != 0) return 1;
    if (mount(nullptr, mount_point.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
      return kNoNamespace;
    }
    return report_error(pipe_fds[1], [&] { AppStore::open(mount_point + "/state/sortie.db"); });
  });
  close(pipe_fds[1]);
  const std::string reported = read_all(pipe_fds[0]);
  close(pipe_fds[0]);
  if (code == kNoNamespace) SKIP_UNLESS_CI("user namespaces are not available here");
  ASSERT_EQ(code, 0);
  EXPECT_EQ(reported.substr(0, reported.find('|')), std::to_string(SORTIE_PERMISSION_DENIED))
      << reported;
  EXPECT_NE(reported.find("cannot write the app store " + mount_point + "/state/sortie.db"),
            std::string::npos)
      << reported;
  EXPECT_NE(reported.find("make " + mount_point + "/state writable or set SORTIE_STATE_DIR"),
            std::string::npos)
      << reported;
}

TEST(AppStoreFailureTest, DiskFullLosesNothingAndRecoversOnceSpaceIsFree) {
  ScratchDir scratch;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const std::string mount_point = scratch.path();
  const std::string path = mount_point + "/sortie.db";
  const int code = run_with_tmpfs(mount_point, "1m", /*read_only=*/false, [&]() -> int {
    // Ballast to delete later: "free space and retry" must then work.
    std::ofstream(mount_point + "/ballast") << std::string(128 * 1024, 'b');
    auto store = AppStore::open(path);
    AppRecord record = sample_record("x");
    int recorded = 0;
    std::string full_error;
    for (int app = 0; app < 10'000 && full_error.empty(); ++app) {
      record = sample_record("a" + std::to_string(app));
      record.appdef_json =
          R"({"roles":[{"name":"trainer"}],"padding":")" + std::string(2000, 'p') + "\"}";
      try {
        store->record_submission(record);
        ++recorded;
      } catch (const Error& error) {
        full_error = std::to_string(error.status()) + "|" + error.what();
      }
    }
    const bool all_readable = static_cast<int>(store->list({}).size()) == recorded;
    const bool failed_one_absent = !store->get(record.handle).has_value();
    store.reset();
    const bool reopened_readable =
        static_cast<int>(AppStore::open(path)->list({}).size()) == recorded;
    std::remove((mount_point + "/ballast").c_str());
    AppStore::open(path)->record_submission(record);
    const bool retry_recorded =
        static_cast<int>(AppStore::open(path)->list({}).size()) == recorded + 1;
    write_all(pipe_fds[1], full_error + "\n" + std::to_string(recorded) + " " +
                               std::to_string(all_readable) + std::to_string(failed_one_absent) +
                               std::to_string(reopened_readable) + std::to_string(retry_recorded));
    return 0;
  });
  close(pipe_fds[1]);
  const std::string reported = read_all(pipe_fds[0]);
  close(pipe_fds[0]);
  if (code == kNoNamespace) SKIP_UNLESS_CI("user namespaces are not available here");
  ASSERT_EQ(code, 0);
  const std::string error = reported.substr(0, reported.find('\n'));
  EXPECT_EQ(error.substr(0, error.find('|')), std::to_string(SORTIE_RESOURCE_EXHAUSTED))
      << reported;
  EXPECT_NE(error.find("disk full writing " + path), std::string::npos) << reported;
  EXPECT_NE(error.find("free space and retry; nothing recorded before was lost"), std::string::npos)
      << reported;
  const std::string counts = reported.substr(reported.find('\n') + 1);
  EXPECT_GT(std::stoi(counts), 5) << "the disk filled before the store worked at all";
  // Every app recorded before the failure reads back, on this connection and a new one; the
  // failed one left nothing; once space is free the same write succeeds.
  EXPECT_EQ(counts.substr(counts.find(' ') + 1), "1111") << reported;
}

}  // namespace
}  // namespace sortie::store
