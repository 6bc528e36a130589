// Test helper: loads the staged local plugin with dlopen, negotiates like the host does and calls
// its components through the C vtables, collecting sink output into strings.
#ifndef SORTIE_TESTS_LOCAL_PLUGIN_CLIENT_HPP
#define SORTIE_TESTS_LOCAL_PLUGIN_CLIENT_HPP

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sortie/plugin_abi.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::local::testing {

struct Result {
  sortie_status status = SORTIE_OK;
  std::string out;
  std::string err;
};

inline void append_to(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

inline sortie_str str(std::string_view text) { return {text.data(), text.size()}; }

inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

struct Line {
  int32_t stream;
  std::string role;
  uint32_t replica_id;
  int64_t timestamp_ns;
  std::string data;
};

inline void collect(void* ctx, const sortie_log_line* line) {
  static_cast<std::vector<Line>*>(ctx)->push_back(
      {line->stream, std::string(line->role.ptr, line->role.len), line->replica_id,
       line->timestamp_ns, std::string(line->data.ptr, line->data.len)});
}

// The plugin library, loaded once per test process (the host never unloads plugins either).
class LocalPlugin {
 public:
  static const LocalPlugin& get() {
    static const LocalPlugin plugin;
    return plugin;
  }
  const void* vtable(uint32_t kind, std::string_view name) const {
    for (size_t i = 0; i < info_.component_count; ++i) {
      const sortie_component& component = *info_.components[i];
      if (component.kind == kind && name == component.name) return component.vtable;
    }
    ADD_FAILURE() << "no component " << name;
    return nullptr;
  }
  const sortie_plugin_info& info() const { return info_; }

 private:
  LocalPlugin() {
    void* library = ::dlopen(SORTIE_LOCAL_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      ADD_FAILURE() << ::dlerror();
      return;
    }
    auto negotiate =
        reinterpret_cast<sortie_plugin_negotiate_fn>(::dlsym(library, SORTIE_PLUGIN_ENTRY_SYMBOL));
    sortie_host_info host{};
    host.struct_size = sizeof(host);
    host.abi_min = SORTIE_ABI_VERSION(1, 0);
    host.abi_max = SORTIE_ABI_CURRENT;
    host.host_version = "test";
    info_.struct_size = sizeof(info_);
    std::string err;
    sortie_sink err_sink{&err, append_to};
    EXPECT_EQ(negotiate(&host, &info_, &err_sink), SORTIE_OK) << err;
  }
  sortie_plugin_info info_{};
};

// A temporary directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "sortie-local-XXXXXX";
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class SchedulerClient {
 public:
  SchedulerClient(std::string_view name, const std::string& state_dir)
      : table_(static_cast<const sortie_scheduler_vtable*>(
            LocalPlugin::get().vtable(SORTIE_KIND_SCHEDULER, name))) {
    const std::string config = R"({"schema":"sortie.scheduler_config/1","scheduler":")" +
                               std::string(name) + R"(","session":"test","state_dir":")" +
                               state_dir + R"("})";
    std::string err;
    sortie_sink err_sink{&err, append_to};
    EXPECT_EQ(table_->create(str(config), &self_, &err_sink), SORTIE_OK) << err;
  }
  ~SchedulerClient() { table_->destroy(self_); }
  SchedulerClient(const SchedulerClient&) = delete;
  SchedulerClient& operator=(const SchedulerClient&) = delete;

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
  Result wait(const std::string& app_id, const std::string& known_state, int64_t timeout_ms) const {
    return call([&](auto* out, auto* err) {
      return table_->wait(self_, str(app_id), str(known_state), timeout_ms, out, err);
    });
  }

  // Dry-runs then schedules; returns the app id (empty on failure, with a test failure).
  std::string submit(const std::string& input) const {
    const Result dry = dryrun(input);
    EXPECT_EQ(dry.status, SORTIE_OK) << dry.err;
    const Result scheduled = schedule(dry.out);
    EXPECT_EQ(scheduled.status, SORTIE_OK) << scheduled.err;
    return scheduled.out;
  }

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

  // An open log stream, read one log_next() call at a time.
  class LogReader {
   public:
    LogReader(const sortie_scheduler_vtable* table, sortie_log_stream* stream)
        : table_(table), stream_(stream) {}
    ~LogReader() { table_->log_close(stream_); }
    LogReader(const LogReader&) = delete;
    LogReader& operator=(const LogReader&) = delete;
    // Appends the lines of one log_next() call; returns true at end of stream.
    bool next(int64_t timeout_ms, std::vector<Line>* lines) {
      sortie_log_sink sink{lines, collect};
      int32_t eof = 0;
      std::string err;
      sortie_sink err_sink{&err, append_to};
      EXPECT_EQ(table_->log_next(stream_, timeout_ms, &sink, &eof, &err_sink), SORTIE_OK) << err;
      return eof != 0;
    }

   private:
    const sortie_scheduler_vtable* table_;
    sortie_log_stream* stream_;
  };

  std::unique_ptr<LogReader> open_logs(const std::string& app_id,
                                       const std::string& request) const {
    std::string err;
    sortie_sink err_sink{&err, append_to};
    sortie_log_stream* stream = nullptr;
    EXPECT_EQ(table_->log_open(self_, str(app_id), str(request), &stream, &err_sink), SORTIE_OK)
        << err;
    return std::make_unique<LogReader>(table_, stream);
  }

  // Opens a log stream and reads it to the end (or until `max_calls` log_next calls).
  Result logs(const std::string& app_id, const std::string& request, std::vector<Line>* lines,
              int max_calls = 1000000) const {
    Result result;
    sortie_sink err_sink{&result.err, append_to};
    sortie_log_stream* stream = nullptr;
    result.status = table_->log_open(self_, str(app_id), str(request), &stream, &err_sink);
    if (result.status != SORTIE_OK) return result;
    sortie_log_sink sink{lines, collect};
    int32_t eof = 0;
    for (int call = 0; call < max_calls && eof == 0 && result.status == SORTIE_OK; ++call) {
      result.status = table_->log_next(stream, 60000, &sink, &eof, &err_sink);
    }
    table_->log_close(stream);
    if (eof == 0 && result.status == SORTIE_OK) result.err = "stream did not end";
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

  const sortie_scheduler_vtable* table_;
  sortie_scheduler* self_ = nullptr;
};

// A sortie.dryrun_input/1 for `roles` (a JSON array text) with run options `cfg` (object text).
inline std::string dryrun_input(const std::string& app_id, const std::string& roles,
                                const std::string& cfg) {
  return R"({"schema":"sortie.dryrun_input/1","app":{"schema":"sortie.appdef/1","name":"app",)"
         R"("roles":)" +
         roles + R"(},"cfg":)" + cfg + R"(,"app_id":")" + app_id + R"(","session":"test"})";
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
