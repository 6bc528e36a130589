// The one raw-ABI test client (Vulkan-Loader's habit: one shared test framework). It loads a
// staged plugin library with dlopen, negotiates as the host does and calls its components
// through their C vtables, collecting what each call writes to its sinks. Tests that must see a
// plugin exactly as the host sees it (no sortie::Error, no C++ wrapper) use it; the host's own
// loader is tested in tests/plugin_host.
#ifndef SORTIE_TESTS_FRAMEWORK_RAW_ABI_CLIENT_HPP
#define SORTIE_TESTS_FRAMEWORK_RAW_ABI_CLIENT_HPP

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sortie/plugin_abi.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::raw_abi {

// What one call returned and wrote to its sinks.
struct Result {
  sortie_status status = SORTIE_OK;
  std::string out;
  std::string err;
};

inline void append_to(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

inline sortie_str str(std::string_view text) { return {text.data(), text.size()}; }

// A JSON string literal (test paths and names need only these escapes).
inline std::string quote(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// One log line as handed to a sortie_log_sink, copied.
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

// A plugin library, negotiated once and never unloaded (as the host does, ABI-13). `api` is what
// the plugin gets as sortie_host_api (NULL: no host log).
class RawPlugin {
 public:
  explicit RawPlugin(const char* path, const sortie_host_api* api = nullptr) {
    void* library = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
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
    host.api = api;
    info_.struct_size = sizeof(info_);
    std::string err;
    sortie_sink err_sink{&err, append_to};
    EXPECT_EQ(negotiate(&host, &info_, &err_sink), SORTIE_OK) << err;
  }
  RawPlugin(const RawPlugin&) = delete;
  RawPlugin& operator=(const RawPlugin&) = delete;

  const sortie_plugin_info& info() const { return info_; }
  // The vtable of the component of `kind` named `name`; NULL, with a test failure, if none.
  const void* vtable(uint32_t kind, std::string_view name) const {
    for (size_t i = 0; i < info_.component_count; ++i) {
      const sortie_component& component = *info_.components[i];
      if (component.kind == kind && name == component.name) return component.vtable;
    }
    ADD_FAILURE() << "the plugin has no component " << name << " of kind " << kind;
    return nullptr;
  }

 private:
  sortie_plugin_info info_{};
};

// Runs fn(out, err) with sinks that collect into a Result.
template <class Fn>
Result call(Fn&& fn) {
  Result result;
  sortie_sink out{&result.out, append_to};
  sortie_sink err{&result.err, append_to};
  result.status = fn(&out, &err);
  return result;
}

// One instance of a component, made by its table's create() from the config the host would pass
// (name and state_dir; schedulers also a session, "test") and destroyed at the end. A failed
// create() is a test failure.
template <class Table, class Self>
class ComponentClient {
 public:
  ComponentClient(const RawPlugin& plugin, uint32_t kind, std::string_view name,
                  const std::string& config)
      : table_(static_cast<const Table*>(plugin.vtable(kind, name))) {
    if (table_ == nullptr) return;
    std::string err;
    sortie_sink err_sink{&err, append_to};
    EXPECT_EQ(table_->create(str(config), &self_, &err_sink), SORTIE_OK) << err;
  }
  ~ComponentClient() {
    if (self_ != nullptr) table_->destroy(self_);
  }
  ComponentClient(const ComponentClient&) = delete;
  ComponentClient& operator=(const ComponentClient&) = delete;

 protected:
  const Table* table_;
  Self* self_ = nullptr;
};

// The config the host passes to a packager's or image provider's create().
inline std::string component_config(std::string_view schema, std::string_view name,
                                    std::string_view state_dir) {
  return R"({"schema":)" + quote(schema) + R"(,"name":)" + quote(name) + R"(,"state_dir":)" +
         quote(state_dir) + "}";
}

class SchedulerClient : public ComponentClient<sortie_scheduler_vtable, sortie_scheduler> {
 public:
  SchedulerClient(const RawPlugin& plugin, std::string_view name, const std::string& state_dir)
      : ComponentClient(plugin, SORTIE_KIND_SCHEDULER, name,
                        R"({"schema":"sortie.scheduler_config/1","scheduler":)" + quote(name) +
                            R"(,"session":"test","state_dir":)" + quote(state_dir) + "}") {}

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
  // ABI-14: the requests together; out gets their app ids, one per line.
  Result schedule_batch(const std::vector<std::string>& requests) const {
    std::vector<sortie_str> views;
    for (const std::string& request : requests) views.push_back(str(request));
    return call([&](auto* out, auto* err) {
      return table_->schedule_batch(self_, views.data(), views.size(), out, err);
    });
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

  // What log_open() answers for a request of no members (the stream, if any, is closed).
  Result log_open(const std::string& app_id) const {
    return call([&](auto*, auto* err) {
      sortie_log_stream* stream = nullptr;
      const sortie_status status = table_->log_open(
          self_, str(app_id), str(R"({"schema":"sortie.log_request/1"})"), &stream, err);
      if (stream != nullptr) table_->log_close(stream);
      return status;
    });
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
    for (int calls = 0; calls < max_calls && eof == 0 && result.status == SORTIE_OK; ++calls) {
      result.status = table_->log_next(stream, 60000, &sink, &eof, &err_sink);
    }
    table_->log_close(stream);
    if (eof == 0 && result.status == SORTIE_OK) result.err = "stream did not end";
    return result;
  }
};

class PackagerClient : public ComponentClient<sortie_packager_vtable, sortie_packager> {
 public:
  PackagerClient(const RawPlugin& plugin, std::string_view name, const std::string& state_dir)
      : ComponentClient(plugin, SORTIE_KIND_PACKAGER, name,
                        component_config("sortie.packager_config/1", name, state_dir)) {}

  // Calls package() with the process's stdout sent to a file, and checks the plugin wrote
  // nothing there (ABI-11: stdout may be the host's protocol channel).
  Result package(const std::string& request) const {
    std::fflush(stdout);
    FILE* capture = std::tmpfile();
    if (capture == nullptr) {
      ADD_FAILURE() << "no temporary file to capture stdout";
      return {};
    }
    const int saved_stdout = ::dup(STDOUT_FILENO);
    ::dup2(::fileno(capture), STDOUT_FILENO);
    Result result =
        call([&](auto* out, auto* err) { return table_->package(self_, str(request), out, err); });
    std::fflush(stdout);
    ::dup2(saved_stdout, STDOUT_FILENO);
    ::close(saved_stdout);
    std::fseek(capture, 0, SEEK_END);
    EXPECT_EQ(std::ftell(capture), 0) << "the plugin wrote to stdout";
    std::fclose(capture);
    return result;
  }
};

class ImageProviderClient
    : public ComponentClient<sortie_image_provider_vtable, sortie_image_provider> {
 public:
  ImageProviderClient(const RawPlugin& plugin, std::string_view name, const std::string& state_dir)
      : ComponentClient(plugin, SORTIE_KIND_IMAGE_PROVIDER, name,
                        component_config("sortie.image_provider_config/1", name, state_dir)) {}

  Result fetch(const std::string& role) const {
    return call([&](auto* out, auto* err) { return table_->fetch(self_, str(role), out, err); });
  }
};

}  // namespace sortie::raw_abi

#endif  // SORTIE_TESTS_FRAMEWORK_RAW_ABI_CLIENT_HPP
