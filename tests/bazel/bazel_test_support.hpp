// Helpers of the bazel plugin tests: the staged plugin called through its C vtables by the shared
// raw-ABI client (tests/framework), a capture of what it sends to the host's log, a private copy of
// examples/bazel with its own Bazel output root, shell commands for checks, and the engine
// requirements (a failure when CI=true, a skip otherwise).
#ifndef SORTIE_TESTS_BAZEL_TEST_SUPPORT_HPP
#define SORTIE_TESTS_BAZEL_TEST_SUPPORT_HPP

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sortie/plugin_abi.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "raw_abi_client.hpp"
#include "temp_dir.hpp"

namespace sortie::bazel::testing {

inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

// A shell word for `text`.
inline std::string shell_quote(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

struct CommandOutput {
  int exit_code = -1;
  std::string out;  // stdout only: add 2>&1 to the command for stderr too
};

// Runs `command` with sh.
inline CommandOutput run_shell(const std::string& command) {
  CommandOutput result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// The output without its trailing newlines.
inline std::string trimmed(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

inline constexpr const char* kBazelSetup = "packaging/engines/bazel_up.sh";
inline constexpr const char* kDockerSetup = "packaging/engines/docker_up.sh";

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// The bazel program the tests run: the first word of SORTIE_BAZEL as the process started with
// it (tests change the variable), else "bazel".
inline std::string bazel_program() {
  static const std::string program = [] {
    const char* setting = std::getenv("SORTIE_BAZEL");
    std::istringstream words(setting != nullptr ? setting : "");
    std::string first;
    words >> first;
    return first.empty() ? std::string("bazel") : first;
  }();
  return program;
}

// Why the Bazel tests cannot run, or "" when they can.
inline std::string bazel_missing() {
  const CommandOutput found = run_shell("command -v " + shell_quote(bazel_program()) + " 2>&1");
  return found.exit_code == 0 ? "" : "cannot find the `" + bazel_program() + "` command";
}

inline std::string docker_missing() {
  const CommandOutput version = run_shell("docker version --format '{{.Server.Version}}' 2>&1");
  return version.exit_code == 0 ? "" : "`docker version` failed: " + version.out;
}

// Fails under CI=true, skips elsewhere, when `missing` (an engine check) says why it can't run.
#define SORTIE_REQUIRE_ENGINE(missing, setup)                                                  \
  do {                                                                                         \
    const std::string why = (missing);                                                         \
    if (!why.empty()) {                                                                        \
      if (::sortie::bazel::testing::in_ci()) {                                                 \
        FAIL() << "CI=true and the engine is not usable: " << why << " (run " << setup << ")"; \
      }                                                                                        \
      GTEST_SKIP() << why << " (run " << setup << ")";                                         \
    }                                                                                          \
  } while (0)
#define SORTIE_REQUIRE_BAZEL()                                     \
  SORTIE_REQUIRE_ENGINE(::sortie::bazel::testing::bazel_missing(), \
                        ::sortie::bazel::testing::kBazelSetup)
#define SORTIE_REQUIRE_DOCKER()                                     \
  SORTIE_REQUIRE_ENGINE(::sortie::bazel::testing::docker_missing(), \
                        ::sortie::bazel::testing::kDockerSetup)

// What the plugin sent to the host's log, with levels.
struct LogEntry {
  int32_t level;
  std::string message;
};

class HostLog {
 public:
  static HostLog& get() {
    static HostLog log;
    return log;
  }
  const sortie_host_api* api() const { return &api_; }
  std::vector<LogEntry> entries() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return entries_;
  }
  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }

 private:
  HostLog() {
    api_.struct_size = sizeof(api_);
    api_.ctx = this;
    api_.log = [](void* ctx, int32_t level, const char* msg, size_t len) {
      auto* self = static_cast<HostLog*>(ctx);
      const std::lock_guard<std::mutex> lock(self->mutex_);
      self->entries_.push_back({level, std::string(msg, len)});
    };
  }
  sortie_host_api api_{};
  std::mutex mutex_;
  std::vector<LogEntry> entries_;
};

// The plugin library, loaded once per test process (the host never unloads plugins either).
inline const raw_abi::RawPlugin& bazel_plugin() {
  static const raw_abi::RawPlugin plugin(SORTIE_BAZEL_PLUGIN_PATH, HostLog::get().api());
  return plugin;
}

using raw_abi::quote;
using raw_abi::Result;

// One packager component, created with `state_dir` as the host would; package() checks that the
// plugin wrote nothing to stdout.
class PackagerClient : public raw_abi::PackagerClient {
 public:
  PackagerClient(std::string_view name, const std::string& state_dir)
      : raw_abi::PackagerClient(bazel_plugin(), name, state_dir) {}
};

// Removes Bazel's read-only output trees too (tests/framework/temp_dir.hpp).
using ::sortie::testing::TempDir;

// A request element.
inline std::string bazel_executable(const std::string& kind, const std::string& name,
                                    const std::string& label,
                                    const std::vector<std::string>& bazel_args = {}) {
  std::string args;
  for (const std::string& arg : bazel_args) args += (args.empty() ? "" : ",") + quote(arg);
  return R"({"kind":)" + quote(kind) + R"(,"name":)" + quote(name) + R"(,"label":)" + quote(label) +
         R"(,"bazel_args":[)" + args + "]}";
}

inline std::string package_request(const std::string& launch_dir,
                                   const std::vector<std::string>& executables) {
  std::string list;
  for (const std::string& executable : executables) list += (list.empty() ? "" : ",") + executable;
  return R"({"schema":"sortie.package_request/1","launch_dir":)" + quote(launch_dir) +
         R"(,"executables":[)" + list + "]}";
}

// Each test gets a copy of examples/bazel (Bazel's bazel-* symlinks never land in the source
// tree), its own Bazel output root (no shared server or output base with other tests) and its
// own packager state. SORTIE_BAZEL points the plugin at that output root.
class BazelWorkspaceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    HostLog::get().clear();
    namespace fs = std::filesystem;
    workspace_ = temp_.path() + "/workspace";
    fs::create_directories(workspace_);
    for (const fs::directory_entry& entry : fs::directory_iterator(SORTIE_BAZEL_EXAMPLE_DIR)) {
      if (entry.path().filename().string().starts_with("bazel-")) continue;
      fs::copy(entry.path(), workspace_ / entry.path().filename(),
               fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    state_dir_ = temp_.path() + "/state";
    fs::create_directories(state_dir_);
    // A server idle this long is a leftover of a crashed test: it goes away by itself.
    bazel_command_ = bazel_program() + " --output_user_root=" + temp_.path() +
                     "/output_user_root --max_idle_secs=120";
    ::setenv("SORTIE_BAZEL", bazel_command_.c_str(), 1);
  }
  void TearDown() override {
    if (std::filesystem::exists(temp_.path() + "/output_user_root")) bazel("shutdown");
  }

  // Runs `bazel COMMAND` in the workspace copy as the plugin would; stdout only.
  CommandOutput bazel(const std::string& command) const {
    return run_shell("cd " + shell_quote(workspace_.string()) + " && " + bazel_command_ + " " +
                     command + " 2>/dev/null");
  }
  std::string workspace() const { return workspace_.string(); }
  const std::string& state_dir() const { return state_dir_; }

 private:
  TempDir temp_;
  std::filesystem::path workspace_;
  std::string state_dir_;
  std::string bazel_command_;
};

}  // namespace sortie::bazel::testing

#endif  // SORTIE_TESTS_BAZEL_TEST_SUPPORT_HPP
