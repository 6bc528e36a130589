// Test helpers for the vertex plugin: the fake servers of tests/vertex/fake (Vertex AI, a
// refusing registry), the staged plugin driven through its C ABI by the shared raw-ABI client
// (tests/framework), temporary directories and the CI rule for missing tools.
#ifndef SORTIE_TESTS_VERTEX_TEST_SUPPORT_HPP
#define SORTIE_TESTS_VERTEX_TEST_SUPPORT_HPP

#include <fcntl.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sortie/plugin_abi.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sortie/http_client.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine_required.hpp"
#include "raw_abi_client.hpp"
#include "temp_dir.hpp"

extern char** environ;

namespace sortie::vertex::testing {

using ::sortie::testing::in_ci;

inline bool have_program(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

using ::sortie::testing::TempDir;

// A python3 test server from tests/vertex/fake/ as a child process on 127.0.0.1 (a free port it
// picks and prints as "PORT <n>"); it stops when its stdin closes or on SIGTERM.
class FakeServer {
 public:
  FakeServer(const std::string& script, const std::vector<std::string>& script_args) {
    int to_child[2];
    int from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return;
    std::vector<std::string> args = {"python3", SORTIE_TEST_SOURCE_DIR "/fake/" + script};
    args.insert(args.end(), script_args.begin(), script_args.end());
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    const int spawned = ::posix_spawnp(&pid_, "python3", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    stdin_ = to_child[1];
    if (spawned != 0) {
      pid_ = -1;
      ::close(from_child[0]);
      return;
    }
    FILE* out = ::fdopen(from_child[0], "r");
    char line[128] = {};
    if (std::fgets(line, sizeof(line), out) != nullptr) {
      port_ = std::atoi(line + std::strlen("PORT "));
    }
    std::fclose(out);
  }
  ~FakeServer() {
    if (stdin_ >= 0) ::close(stdin_);
    if (pid_ > 0) {
      int status = 0;
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, &status, 0);
    }
  }
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  bool running() const { return port_ > 0; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Sends a /_fake/ control request; returns the answer body.
  std::string control(const std::string& method, const std::string& path,
                      const std::string& body = "") const {
    http::Endpoint endpoint;
    endpoint.base_url = url();
    endpoint.timeout_ms = 10000;
    http::Client client(endpoint);
    http::Request request;
    request.method = method;
    request.path = path;
    request.body = body;
    const http::Response response = client.send(request);
    EXPECT_EQ(response.status, 200) << response.body;
    return response.body;
  }
  // The requests the fake has seen (method, path, authorization[, body]).
  rapidjson::Document requests() const { return parse(control("GET", "/_fake/requests")); }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
};

// tests/vertex/fake/fake_vertex.py: the Vertex AI REST API and an OAuth token endpoint.
class FakeVertex : public FakeServer {
 public:
  explicit FakeVertex(const std::vector<std::string>& extra_args = {})
      : FakeServer("fake_vertex.py", with_token(extra_args)) {}

  static std::string token() { return "ya29.test-token-7f3a"; }

 private:
  static std::vector<std::string> with_token(std::vector<std::string> args) {
    args.insert(args.begin(), {"--token", token()});
    return args;
  }
};

using raw_abi::Result;

// The staged plugin library, negotiated once per test process as the host does.
inline const raw_abi::RawPlugin& vertex_plugin() {
  static const raw_abi::RawPlugin plugin(SORTIE_VERTEX_PLUGIN_PATH);
  return plugin;
}

// One scheduler component of the plugin, created with a state directory, called through its
// C vtable.
class SchedulerClient : public raw_abi::SchedulerClient {
 public:
  SchedulerClient(std::string_view name, const std::string& state_dir)
      : raw_abi::SchedulerClient(vertex_plugin(), name, state_dir) {}
};

// A sortie.dryrun_input/1 for `roles` (a JSON array text) with run options `cfg` (object text).
inline std::string dryrun_input(const std::string& app_id, const std::string& roles,
                                const std::string& cfg) {
  return R"({"schema":"sortie.dryrun_input/1","app":{"schema":"sortie.appdef/1","name":"app",)"
         R"("roles":)" +
         roles + R"(},"cfg":)" + cfg + R"(,"app_id":")" + app_id + R"(","session":"test"})";
}

}  // namespace sortie::vertex::testing

#endif  // SORTIE_TESTS_VERTEX_TEST_SUPPORT_HPP
