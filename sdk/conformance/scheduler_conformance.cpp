// sortie-scheduler-conformance: the standard suite every scheduler plugin passes. It loads the
// plugin library as the host does (dlopen, negotiate, the C table; no sortie::Error, no C++
// wrapper) and checks the behaviour sdk/README.md promises, printing one line per check.
//   sortie-scheduler-conformance --plugin LIB --scheduler NAME [--cfg JSON] [--image IMAGE]
//                                [--supports FIELD]... [--skip CHECK]... [--unimplemented logs]
// Plain C++ so that third parties need no test framework; exit status 0 when every check passes.
#include <dlfcn.h>
#include <rapidjson/document.h>
#include <sortie/plugin_abi.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string plugin;
  std::string scheduler;
  std::string cfg = "{}";
  std::string image;
  std::set<std::string> supports;  // AppDef fields the scheduler honours
  std::set<std::string> skips;     // checks not run (e.g. "run" where no backend is reachable);
                                   // list and logs also when the scheduler lacks them
  // log_open refuses every app with UNIMPLEMENTED, saying where the logs are (--unimplemented logs)
  bool logs_unimplemented = false;
};

struct Result {
  sortie_status status = SORTIE_OK;
  std::string out;
  std::string err;
};

void append_to(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

sortie_str str(const std::string& text) { return {text.data(), text.size()}; }

std::string quote(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// A check failed: the message says what was expected and what the plugin did.
struct Failure {
  std::string message;
};

void expect(bool ok, const std::string& message) {
  if (!ok) throw Failure{message};
}

std::string status_name(sortie_status status) {
  static const std::map<sortie_status, const char*> kNames = {
      {SORTIE_OK, "OK"},
      {SORTIE_CANCELLED, "CANCELLED"},
      {SORTIE_UNKNOWN, "UNKNOWN"},
      {SORTIE_INVALID_ARGUMENT, "INVALID_ARGUMENT"},
      {SORTIE_DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED"},
      {SORTIE_NOT_FOUND, "NOT_FOUND"},
      {SORTIE_ALREADY_EXISTS, "ALREADY_EXISTS"},
      {SORTIE_PERMISSION_DENIED, "PERMISSION_DENIED"},
      {SORTIE_RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"},
      {SORTIE_FAILED_PRECONDITION, "FAILED_PRECONDITION"},
      {SORTIE_UNIMPLEMENTED, "UNIMPLEMENTED"},
      {SORTIE_INTERNAL, "INTERNAL"},
      {SORTIE_UNAVAILABLE, "UNAVAILABLE"},
      {SORTIE_UNAUTHENTICATED, "UNAUTHENTICATED"}};
  const auto it = kNames.find(status);
  return it != kNames.end() ? it->second : "status " + std::to_string(status);
}

std::string describe_result(const Result& result) {
  return status_name(result.status) + (result.err.empty() ? "" : ": " + result.err);
}

void expect_ok(const Result& result, const std::string& call) {
  expect(result.status == SORTIE_OK, call + " failed with " + describe_result(result));
}

// Runs fn with fd 1 sent to a temporary file and fails if anything was written there (ABI-11:
// stdout may be the host's protocol channel).
template <class Fn>
Result without_stdout(const std::string& call, Fn&& fn) {
  std::fflush(stdout);
  FILE* capture = std::tmpfile();
  expect(capture != nullptr, "no temporary file to capture stdout");
  const int saved = ::dup(STDOUT_FILENO);
  ::dup2(::fileno(capture), STDOUT_FILENO);
  Result result;
  sortie_sink out{&result.out, append_to};
  sortie_sink err{&result.err, append_to};
  result.status = fn(&out, &err);
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  std::fseek(capture, 0, SEEK_END);
  const long written = std::ftell(capture);
  std::fclose(capture);
  expect(written == 0, call + " wrote " + std::to_string(written) + " bytes to stdout (ABI-11)");
  return result;
}

rapidjson::Document parse(const std::string& json, const std::string& what) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  expect(!doc.HasParseError() && doc.IsObject(), what + " is not a JSON object: " + json);
  return doc;
}

std::string member(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

class Conformance {
 public:
  explicit Conformance(Options options) : options_(std::move(options)) {}

  int run() {
    check("negotiate", [&] { negotiate(); });
    if (table_ == nullptr) return report();
    check("dryrun", [&] { dryrun_minimal(); });
    check("unknown_id", [&] { unknown_id(); });
    for (const char* field : kProbes) {
      if (options_.supports.count(field) == 0) {
        check(std::string("refuses_") + field, [&] { refuses(field); });
      }
    }
    if (options_.skips.count("run") != 0) options_.skips.insert({"list", "logs"});  // need an app
    if (table_->list == nullptr) options_.skips.insert("list");                     // optional
    if (table_->log_open == nullptr) options_.skips.insert("logs");                 // optional
    check("run", [&] { run_to_end(); });
    check("list", [&] { listed(); });
    check("logs", [&] { logs(); });
    table_->destroy(self_);
    std::filesystem::remove_all(state_dir_);
    return report();
  }

 private:
  // AppDef fields the suite sets, one at a time, on a minimal role; each must be honoured
  // (--supports) or refused with INVALID_ARGUMENT naming it.
  static constexpr const char* kProbes[] = {"base_image", "min_replicas", "max_retries",
                                            "port_map",   "mounts",       "resource"};

  void check(const std::string& name, const std::function<void()>& body) {
    if (options_.skips.count(name) != 0) {
      std::cerr << "SKIP " << name << "\n";
      return;
    }
    try {
      body();
      std::cerr << "PASS " << name << "\n";
    } catch (const Failure& failure) {
      std::cerr << "FAIL " << name << ": " << failure.message << "\n";
      ++failures_;
    }
  }

  int report() const {
    std::cerr << options_.scheduler << ": " << (failures_ == 0 ? "conformant" : "NOT conformant")
              << " (" << failures_ << " failed)\n";
    return failures_ == 0 ? 0 : 1;
  }

  void negotiate() {
    void* library = ::dlopen(options_.plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) throw Failure{std::string("cannot load: ") + ::dlerror()};
    auto entry =
        reinterpret_cast<sortie_plugin_negotiate_fn>(::dlsym(library, SORTIE_PLUGIN_ENTRY_SYMBOL));
    expect(entry != nullptr, "no " SORTIE_PLUGIN_ENTRY_SYMBOL " (ABI-1)");
    sortie_host_info host{};
    host.struct_size = sizeof(host);
    host.abi_min = SORTIE_ABI_VERSION(1, 0);
    host.abi_max = SORTIE_ABI_CURRENT;
    host.host_version = "conformance";
    sortie_plugin_info info{};
    info.struct_size = sizeof(info);
    const Result negotiated =
        without_stdout("negotiate", [&](auto*, auto* err) { return entry(&host, &info, err); });
    expect_ok(negotiated, "negotiate");
    expect(info.abi_version >= host.abi_min && info.abi_version <= host.abi_max,
           "answered an ABI version outside the offered range (ABI-2)");
    const sortie_scheduler_vtable* table = nullptr;
    for (size_t i = 0; i < info.component_count; ++i) {
      const sortie_component& component = *info.components[i];
      if (component.kind == SORTIE_KIND_SCHEDULER && options_.scheduler == component.name) {
        table = static_cast<const sortie_scheduler_vtable*>(component.vtable);
      }
    }
    expect(table != nullptr, "the plugin has no scheduler named " + options_.scheduler);
    expect(table->create != nullptr && table->destroy != nullptr && table->dryrun != nullptr &&
               table->schedule != nullptr && table->describe != nullptr && table->cancel != nullptr,
           "the scheduler table lacks one of create, destroy, dryrun, schedule, describe, cancel");
    state_dir_ = std::filesystem::temp_directory_path() /
                 ("sortie-conformance-" + std::to_string(::getpid()));
    std::filesystem::create_directories(state_dir_);
    const std::string config = R"({"schema":"sortie.scheduler_config/1","scheduler":)" +
                               quote(options_.scheduler) + R"(,"session":"conformance",)" +
                               R"("state_dir":)" + quote(state_dir_.string()) + "}";
    const Result created = without_stdout(
        "create", [&](auto*, auto* err) { return table->create(str(config), &self_, err); });
    expect_ok(created, "create");
    expect(self_ != nullptr, "create returned OK but no handle");
    table_ = table;
  }

  // A dryrun input for one role of `role_members` (extra members of the role, with a leading
  // comma) running entrypoint/args.
  std::string input(const std::string& app_id, const std::string& entrypoint,
                    const std::string& args, const std::string& role_members = "") const {
    const std::string image =
        options_.image.empty() ? "" : R"("image":)" + quote(options_.image) + ",";
    return R"({"schema":"sortie.dryrun_input/1","app_id":)" + quote(app_id) +
           R"(,"session":"conformance","cfg":)" + options_.cfg +
           R"(,"app":{"schema":"sortie.appdef/1","name":"conformance","roles":[{"name":"main",)" +
           image + R"("entrypoint":)" + quote(entrypoint) + R"(,"args":)" + args + role_members +
           "}]}}";
  }

  Result dryrun(const std::string& in) const {
    return without_stdout(
        "dryrun", [&](auto* out, auto* err) { return table_->dryrun(self_, str(in), out, err); });
  }
  Result describe(const std::string& app_id) const {
    return without_stdout("describe", [&](auto* out, auto* err) {
      return table_->describe(self_, str(app_id), out, err);
    });
  }
  Result cancel(const std::string& app_id) const {
    return without_stdout(
        "cancel", [&](auto*, auto* err) { return table_->cancel(self_, str(app_id), err); });
  }
  std::string state_of(const std::string& app_id) const {
    const Result status = describe(app_id);
    expect_ok(status, "describe(" + app_id + ")");
    const rapidjson::Document doc = parse(status.out, "describe's output");
    expect(member(doc, "schema") == "sortie.status/1", "describe did not write sortie.status/1");
    return member(doc, "state");
  }

  void dryrun_minimal() {
    const Result dry = dryrun(input("conformance-dryrun", "true", "[]"));
    expect_ok(dry, "dryrun of a minimal AppDef");
    const rapidjson::Document doc = parse(dry.out, "dryrun's output");
    expect(member(doc, "schema") == "sortie.dryrun/1", "dryrun did not write sortie.dryrun/1");
    expect(!member(doc, "app_id").empty(), "dryrun wrote no app_id");
    expect(doc.HasMember("request"), "dryrun wrote no request");
  }

  // Two ids never scheduled: a foreign one, which a scheduler may refuse by its form alone, and
  // the id its own dryrun proposed, which has the right form, so it has to be looked up.
  void unknown_id() {
    const Result dry = dryrun(input("conformance-unknown", "true", "[]"));
    expect_ok(dry, "dryrun of a minimal AppDef");
    const std::string proposed = member(parse(dry.out, "dryrun's output"), "app_id");
    for (const std::string& id : {std::string("conformance-no-such-app"), proposed}) {
      const Result described = describe(id);
      expect(described.status == SORTIE_NOT_FOUND, "describe of the unknown id '" + id +
                                                       "': expected NOT_FOUND, got " +
                                                       describe_result(described));
      const Result cancelled = cancel(id);
      expect(cancelled.status == SORTIE_NOT_FOUND, "cancel of the unknown id '" + id +
                                                       "': expected NOT_FOUND, got " +
                                                       describe_result(cancelled));
    }
  }

  void refuses(const std::string& field) {
    static const std::map<std::string, std::string> kMembers = {
        {"base_image", R"(,"base_image":"conformance/base:1")"},
        {"min_replicas", R"(,"num_replicas":2,"min_replicas":1)"},
        {"max_retries", R"(,"max_retries":2)"},
        {"port_map", R"(,"port_map":{"http":8080})"},
        {"mounts", R"(,"mounts":[{"type":"bind","src":"/tmp","dst":"/data","read_only":true}])"},
        {"resource", R"(,"resource":{"cpu":1,"gpu":0,"memMB":512})"}};
    const Result dry = dryrun(input("conformance-refuse", "true", "[]", kMembers.at(field)));
    expect(dry.status == SORTIE_INVALID_ARGUMENT && dry.err.find(field) != std::string::npos,
           "an AppDef with '" + field + "' must be refused with INVALID_ARGUMENT naming '" + field +
               "' (or declared supported), got " + describe_result(dry));
  }

  // App ids differ between runs, so apps a backend keeps from an earlier run never clash.
  static std::string unique_id(const std::string& name) {
    return "conformance-" + name + "-" + std::to_string(::getpid());
  }

  // Dry-runs and schedules; returns the app id.
  std::string submit(const std::string& app_id, const std::string& entrypoint,
                     const std::string& args) {
    const Result dry = dryrun(input(app_id, entrypoint, args));
    expect_ok(dry, "dryrun");
    const Result scheduled = without_stdout("schedule", [&](auto* out, auto* err) {
      return table_->schedule(self_, str(dry.out), out, err);
    });
    expect_ok(scheduled, "schedule");
    expect(!scheduled.out.empty(), "schedule returned no app id");
    return scheduled.out;
  }

  std::string wait_terminal(const std::string& app_id) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    for (;;) {
      const std::string state = state_of(app_id);
      if (state == "SUCCEEDED" || state == "FAILED" || state == "CANCELLED") return state;
      expect(std::chrono::steady_clock::now() < deadline,
             app_id + " is still " + state + " after 2 minutes");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  void run_to_end() {
    const std::string good = submit(unique_id("true"), "true", "[]");
    const std::string good_state = wait_terminal(good);
    expect(good_state == "SUCCEEDED", "'true' ended " + good_state + ", not SUCCEEDED");
    const std::string bad = submit(unique_id("false"), "false", "[]");
    const std::string bad_state = wait_terminal(bad);
    expect(bad_state == "FAILED", "'false' ended " + bad_state + ", not FAILED");
    expect_ok(cancel(good), "cancel of a terminal app");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    expect(state_of(good) == "SUCCEEDED", "a SUCCEEDED app changed state after cancel");
    expect(state_of(bad) == "FAILED", "a FAILED app changed state");
    finished_app_ = good;
  }

  void listed() {
    expect(!finished_app_.empty(), "needs the app of check 'run'");
    const Result list = without_stdout("list", [&](auto* out, auto* err) {
      const std::string filter = R"({"schema":"sortie.list_filter/1"})";
      return table_->list(self_, str(filter), out, err);
    });
    expect_ok(list, "list");
    const rapidjson::Document doc = parse(list.out, "list's output");
    expect(member(doc, "schema") == "sortie.list/1", "list did not write sortie.list/1");
    expect(doc.HasMember("apps") && doc["apps"].IsArray(), "list wrote no \"apps\" array");
    std::string state;
    for (const auto& app : doc["apps"].GetArray()) {
      if (member(app, "app_id") == finished_app_) state = member(app, "state");
    }
    expect(!state.empty(), "list does not include " + finished_app_);
    expect(state == "SUCCEEDED", "list says " + finished_app_ + " is " + state + ", not SUCCEEDED");
  }

  struct ReadLine {
    std::string role;
    uint32_t replica = 0;
    std::string data;
  };

  // Reads the logs of app_id with `request` (sortie.log_request/1) to their end.
  Result read_logs(const std::string& app_id, const std::string& request,
                   std::vector<ReadLine>& lines) const {
    return without_stdout("log_open/log_next", [&](auto*, auto* err) {
      sortie_log_stream* stream = nullptr;
      sortie_status status = table_->log_open(self_, str(app_id), str(request), &stream, err);
      if (status != SORTIE_OK) return status;
      sortie_log_sink sink{&lines, [](void* ctx, const sortie_log_line* line) {
                             static_cast<std::vector<ReadLine>*>(ctx)->push_back(
                                 {std::string(line->role.ptr, line->role.len), line->replica_id,
                                  std::string(line->data.ptr, line->data.len)});
                           }};
      int32_t eof = 0;
      for (int calls = 0; status == SORTIE_OK && eof == 0 && calls < 1000; ++calls) {
        status = table_->log_next(stream, 10000, &sink, &eof, err);
      }
      table_->log_close(stream);
      return status;
    });
  }

  // A scheduler whose backend keeps logs elsewhere refuses them as documented, never with an
  // empty answer that reads as an app that printed nothing.
  void logs_refused() {
    expect(!finished_app_.empty(), "needs the app of check 'run'");
    std::vector<ReadLine> lines;
    const Result refused = read_logs(finished_app_, R"({"schema":"sortie.log_request/1"})", lines);
    expect(refused.status == SORTIE_UNIMPLEMENTED && !refused.err.empty(),
           "logs declared unimplemented: expected UNIMPLEMENTED with a message, got " +
               describe_result(refused));
  }

  void logs() {
    if (options_.logs_unimplemented) return logs_refused();
    const std::string app_id = submit(unique_id("echo"), "echo", R"(["conformance-line"])");
    wait_terminal(app_id);
    std::vector<ReadLine> lines;
    expect_ok(read_logs(app_id, R"({"schema":"sortie.log_request/1"})", lines),
              "reading the logs of " + app_id);
    const ReadLine* printed = nullptr;
    for (const ReadLine& line : lines) {
      if (line.data.find("conformance-line") == 0) printed = &line;
    }
    expect(printed != nullptr, "the logs of " + app_id + " lack the line it printed");
    expect(printed->role == "main" && printed->replica == 0,
           "the printed line is attributed to role '" + printed->role + "' replica " +
               std::to_string(printed->replica) + ", not role 'main' replica 0");
    expect(printed->data == "conformance-line\n",
           "a line is handed over whole with its newline (ABI-12), got " + quote(printed->data));

    std::vector<ReadLine> selected;
    expect_ok(read_logs(app_id,
                        R"({"schema":"sortie.log_request/1","role":"main","replica":0,)"
                        R"("streams":"combined","follow":false})",
                        selected),
              "reading role 'main' replica 0 of " + app_id);
    expect(selected.size() == lines.size(),
           "selecting the app's only replica changed the lines read from " +
               std::to_string(lines.size()) + " to " + std::to_string(selected.size()));

    std::vector<ReadLine> none;
    const Result other =
        read_logs(app_id, R"({"schema":"sortie.log_request/1","role":"no-such-role"})", none);
    expect((other.status == SORTIE_OK && none.empty()) || other.status == SORTIE_NOT_FOUND,
           "the logs of a role the app lacks: expected no lines or NOT_FOUND, got " +
               describe_result(other) + " with " + std::to_string(none.size()) + " lines");
  }

  Options options_;
  const sortie_scheduler_vtable* table_ = nullptr;
  sortie_scheduler* self_ = nullptr;
  std::filesystem::path state_dir_;
  std::string finished_app_;
  int failures_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--plugin")
      options.plugin = value;
    else if (flag == "--scheduler")
      options.scheduler = value;
    else if (flag == "--cfg")
      options.cfg = value;
    else if (flag == "--image")
      options.image = value;
    else if (flag == "--supports")
      options.supports.insert(value);
    else if (flag == "--skip")
      options.skips.insert(value);
    else if (flag == "--unimplemented" && value == "logs")
      options.logs_unimplemented = true;
    else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (options.plugin.empty() || options.scheduler.empty() || argc % 2 == 0) {
    std::cerr << "usage: " << argv[0]
              << " --plugin LIB --scheduler NAME [--cfg JSON] [--image IMAGE]"
                 " [--supports FIELD]... [--skip CHECK]... [--unimplemented logs]\n";
    return 2;
  }
  return Conformance(std::move(options)).run();
}
