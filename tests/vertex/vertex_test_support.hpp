// Test helpers for the vertex plugin: the fake servers of tests/vertex/fake (Vertex AI, a
// refusing registry), the staged plugin driven through its C ABI, temporary directories and the
// CI rule for missing tools.
#ifndef SORTIE_TESTS_VERTEX_TEST_SUPPORT_HPP
#define SORTIE_TESTS_VERTEX_TEST_SUPPORT_HPP

#include <dlfcn.h>
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

extern char** environ;

namespace sortie::vertex::testing {

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

// Skips the test outside CI, fails it under CI=true (a missing tool must not pass CI).
#define SORTIE_VERTEX_REQUIRE(condition, reason)                  \
  do {                                                            \
    if (!(condition)) {                                           \
      if (::sortie::vertex::testing::in_ci()) FAIL() << (reason); \
      GTEST_SKIP() << (reason);                                   \
    }                                                             \
  } while (false)

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

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "sortie-vertex-XXXXXX";
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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

struct Result {
  sortie_status status = SORTIE_OK;
  std::string out;
  std::string err;
};

inline void append_to(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

inline sortie_str str(std::string_view text) { return {text.data(), text.size()}; }

// The staged plugin library, negotiated once per test process as the host does.
inline const sortie_plugin_info& plugin_info() {
  static const sortie_plugin_info info = [] {
    sortie_plugin_info loaded{};
    void* library = ::dlopen(SORTIE_VERTEX_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      ADD_FAILURE() << ::dlerror();
      return loaded;
    }
    auto negotiate =
        reinterpret_cast<sortie_plugin_negotiate_fn>(::dlsym(library, SORTIE_PLUGIN_ENTRY_SYMBOL));
    sortie_host_info host{};
    host.struct_size = sizeof(host);
    host.abi_min = SORTIE_ABI_VERSION(1, 0);
    host.abi_max = SORTIE_ABI_CURRENT;
    host.host_version = "test";
    loaded.struct_size = sizeof(loaded);
    std::string err;
    sortie_sink err_sink{&err, append_to};
    EXPECT_EQ(negotiate(&host, &loaded, &err_sink), SORTIE_OK) << err;
    return loaded;
  }();
  return info;
}

// One scheduler component of the plugin, created with a state directory, called through its
// C vtable.
class SchedulerClient {
 public:
  SchedulerClient(std::string_view name, const std::string& state_dir) {
    const sortie_plugin_info& info = plugin_info();
    for (size_t i = 0; i < info.component_count; ++i) {
      const sortie_component& component = *info.components[i];
      if (component.kind == SORTIE_KIND_SCHEDULER && name == component.name) {
        table_ = static_cast<const sortie_scheduler_vtable*>(component.vtable);
      }
    }
    if (table_ == nullptr) {
      ADD_FAILURE() << "the plugin has no scheduler " << name;
      return;
    }
    const std::string config = R"({"schema":"sortie.scheduler_config/1","scheduler":")" +
                               std::string(name) + R"(","session":"test","state_dir":")" +
                               state_dir + R"("})";
    std::string err;
    sortie_sink err_sink{&err, append_to};
    EXPECT_EQ(table_->create(str(config), &self_, &err_sink), SORTIE_OK) << err;
  }
  ~SchedulerClient() {
    if (self_ != nullptr) table_->destroy(self_);
  }
  SchedulerClient(const SchedulerClient&) = delete;
  SchedulerClient& operator=(const SchedulerClient&) = delete;

  const sortie_scheduler_vtable* table() const { return table_; }
  Result run_options() const {
    return call([&](auto* out, auto* err) { return table_->run_options(self_, out, err); });
  }
  Result dryrun(const std::string& input) const {
    return call([&](auto* out, auto* err) { return table_->dryrun(self_, str(input), out, err); });
  }
  Result schedule(const std::string& request) const {
    return call(
        [&](auto* out, auto* err) { return table_->schedule(self_, str(request), out, err); });
  }
  Result describe(const std::string& app_id) const {
    return call(
        [&](auto* out, auto* err) { return table_->describe(self_, str(app_id), out, err); });
  }
  Result list(const std::string& filter) const {
    return call([&](auto* out, auto* err) { return table_->list(self_, str(filter), out, err); });
  }
  Result cancel(const std::string& app_id) const {
    return call([&](auto*, auto* err) { return table_->cancel(self_, str(app_id), err); });
  }
  Result log_open(const std::string& app_id) const {
    Result result;
    sortie_sink err{&result.err, append_to};
    sortie_log_stream* stream = nullptr;
    result.status = table_->log_open(self_, str(app_id),
                                     str(R"({"schema":"sortie.log_request/1"})"), &stream, &err);
    if (stream != nullptr) table_->log_close(stream);
    return result;
  }

 private:
  template <class Fn>
  Result call(Fn&& fn) const {
    Result result;
    sortie_sink out{&result.out, append_to};
    sortie_sink err{&result.err, append_to};
    result.status = fn(&out, &err);
    return result;
  }

  const sortie_scheduler_vtable* table_ = nullptr;
  sortie_scheduler* self_ = nullptr;
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
