// Test helper: the staged local plugin driven through its C ABI by the shared raw-ABI client
// (tests/framework/raw_abi_client.hpp), with the waits the scheduler tests need.
#ifndef SORTIE_TESTS_LOCAL_PLUGIN_CLIENT_HPP
#define SORTIE_TESTS_LOCAL_PLUGIN_CLIENT_HPP

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "raw_abi_client.hpp"
#include "temp_dir.hpp"

namespace sortie::local::testing {

using raw_abi::Line;
using raw_abi::Result;

inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

// The plugin library, loaded once per test process (the host never unloads plugins either).
inline const raw_abi::RawPlugin& local_plugin() {
  static const raw_abi::RawPlugin plugin(SORTIE_LOCAL_PLUGIN_PATH);
  return plugin;
}

// A temporary directory removed at the end of the test.
using ::sortie::testing::TempDir;

// One of the plugin's schedulers, created with `state_dir` as the host would.
class SchedulerClient : public raw_abi::SchedulerClient {
 public:
  SchedulerClient(std::string_view name, const std::string& state_dir)
      : raw_abi::SchedulerClient(local_plugin(), name, state_dir) {}

  // Waits (through wait(), never sleeping) until the app is terminal; returns its status.
  rapidjson::Document wait_terminal(const std::string& app_id) const {
    std::string state;
    for (int round = 0; round < 1000; ++round) {
      const Result result = wait(app_id, state, 60000);
      EXPECT_EQ(result.status, SORTIE_OK) << result.err;
      rapidjson::Document status = parse(result.out);
      state = status["state"].GetString();
      if (state == "SUCCEEDED" || state == "FAILED" || state == "CANCELLED") return status;
    }
    ADD_FAILURE() << "app " << app_id << " never ended";
    return parse(describe(app_id).out);
  }

  // Waits until the app left PENDING. The supervisor starts every replica before it first
  // records RUNNING, so then every replica has been started.
  rapidjson::Document wait_running(const std::string& app_id) const {
    std::string state = "PENDING";
    for (int round = 0; round < 1000; ++round) {
      rapidjson::Document status = parse(wait(app_id, state, 60000).out);
      state = status["state"].GetString();
      if (state != "PENDING" && state != "SUBMITTED") return status;
    }
    ADD_FAILURE() << "app " << app_id << " never started";
    return parse(describe(app_id).out);
  }
};

// A sortie.dryrun_input/1 for `roles` (a JSON array text) with run options `cfg` (object text).
inline std::string dryrun_input(const std::string& app_id, const std::string& roles,
                                const std::string& cfg) {
  return R"({"schema":"sortie.dryrun_input/1","app":{"schema":"sortie.appdef/1","name":"app",)"
         R"("roles":)" +
         roles + R"(},"cfg":)" + cfg + R"(,"app_id":")" + app_id + R"(","session":"test"})";
}

// The app's state.json as the supervisor keeps it: in its runtime directory (reached through
// <app_dir>/run) while it runs and $XDG_RUNTIME_DIR is usable, else in the app directory.
inline std::string state_json_path(const std::string& app_dir) {
  const std::string runtime = app_dir + "/run/state.json";
  return std::filesystem::exists(runtime) ? runtime : app_dir + "/state.json";
}

// True when no process with this pid runs (absent from /proc, or a zombie nobody reaped yet).
inline bool process_gone(int64_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return true;
  char buffer[512] = {};
  const size_t n = std::fread(buffer, 1, sizeof(buffer) - 1, file);
  std::fclose(file);
  const char* paren = std::strrchr(buffer, ')');
  return n == 0 || paren == nullptr || paren[2] == 'Z' || paren[2] == 'X';
}

}  // namespace sortie::local::testing

#endif  // SORTIE_TESTS_LOCAL_PLUGIN_CLIENT_HPP
