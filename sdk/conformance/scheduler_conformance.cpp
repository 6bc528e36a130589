// sortie-scheduler-conformance: the standard suite every scheduler plugin passes. It loads the
// plugin library as the host does (dlopen, negotiate, the C table; no sortie::Error, no C++
// wrapper) and checks the behaviour sdk/README.md promises, printing one line per check.
//   sortie-scheduler-conformance --plugin LIB --scheduler NAME [--cfg JSON] [--image IMAGE]
//                                [--supports FIELD]... [--skip CHECK]... [--unimplemented logs]
//                                [--grace SECONDS]
// Plain C++ so that third parties need no test framework; exit status 0 when every check passes.
#include <dlfcn.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sortie/plugin_abi.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "caller_pipe.hpp"

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
  // how long after cancel returns every process of the app must have stopped
  std::chrono::seconds grace{30};
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

std::string quote(std::string_view text) {  // a JSON string
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      quoted += escaped;
    } else {
      quoted += c;
    }
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

// Runs fn with fd 1 on a real pipe and fails if anything was written there (ABI-11: stdout may
// be the host's protocol channel).
template <class Fn>
Result without_stdout(const std::string& call, Fn&& fn) {
  Result result;
  std::string written;
  {
    sortie::conformance::CallerPipe stdout_pipe(STDOUT_FILENO);
    sortie_sink out{&result.out, append_to};
    sortie_sink err{&result.err, append_to};
    result.status = fn(&out, &err);
    stdout_pipe.restore();
    stdout_pipe.released(std::chrono::milliseconds(200));  // what the call itself wrote
    written = stdout_pipe.written();
  }
  expect(written.empty(), call + " wrote " + std::to_string(written.size()) +
                              " bytes to stdout (ABI-11): " + quote(written.substr(0, 80)));
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
    if (options_.skips.count("run") != 0) {  // every later check needs an app that runs
      options_.skips.insert({"list", "logs", "replicas", "args", "env", "caller_fds",
                             "cancel_running", "logs_replicas", "logs_streams", "logs_window",
                             "logs_follow"});
    }
    if (table_->list == nullptr) options_.skips.insert("list");  // optional
    if (table_->log_open == nullptr || options_.logs_unimplemented) {
      options_.skips.insert({"logs_replicas", "logs_streams", "logs_window", "logs_follow"});
    }
    if (table_->log_open == nullptr) options_.skips.insert("logs");
    check("run", [&] { run_to_end(); });
    check("list", [&] { listed(); });
    check("logs", [&] { logs(); });
    check("replicas", [&] { replicas(); });
    check("args", [&] { args_exact(); });
    check("env", [&] { env_exact(); });
    check("logs_replicas", [&] { logs_per_replica(); });
    check("logs_streams", [&] { logs_streams(); });
    check("logs_window", [&] { logs_window(); });
    check("caller_fds", [&] { caller_fds(); });
    check("cancel_running", [&] { cancel_running(); });
    check("logs_follow", [&] { logs_follow(); });
    if (!running_app_.empty()) {  // what a failed check left running
      try {
        cancel(running_app_);
      } catch (const Failure&) {  // reported by the check that failed
      }
      kill_leftover_replicas();
    }
    table_->destroy(self_);
    std::error_code ignored;  // a container may have left files the kit cannot remove
    std::filesystem::remove_all(state_dir_, ignored);
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
    note_.clear();
    try {
      body();
      std::cerr << "PASS " << name << (note_.empty() ? "" : " (" + note_ + ")") << "\n";
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

  // A dryrun input for one role "main" running entrypoint/args, with `role_members` (extra
  // members of the role, with a leading comma).
  std::string input(const std::string& app_id, const std::string& entrypoint,
                    const std::string& args, const std::string& role_members = "") const {
    return app_input(app_id, {R"({"name":"main",)" + image_member() + R"("entrypoint":)" +
                              quote(entrypoint) + R"(,"args":)" + args + role_members + "}"});
  }
  std::string app_input(const std::string& app_id, const std::vector<std::string>& roles) const {
    std::string joined;
    for (const std::string& role : roles) joined += (joined.empty() ? "" : ",") + role;
    return R"({"schema":"sortie.dryrun_input/1","app_id":)" + quote(app_id) +
           R"(,"session":"conformance","cfg":)" + options_.cfg +
           R"(,"app":{"schema":"sortie.appdef/1","name":"conformance","roles":[)" + joined + "]}}";
  }
  std::string image_member() const {
    return options_.image.empty() ? "" : R"("image":)" + quote(options_.image) + ",";
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
      if (table_->log_open != nullptr && !options_.logs_unimplemented) {
        std::vector<ReadLine> lines;
        const Result logs = read_logs(id, R"({"schema":"sortie.log_request/1"})", lines);
        expect(logs.status == SORTIE_NOT_FOUND, "log_open of the unknown id '" + id +
                                                    "': expected NOT_FOUND, got " +
                                                    describe_result(logs));
      }
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

  // Dry-runs and schedules one role "main"; returns the app id.
  std::string submit(const std::string& app_id, const std::string& entrypoint,
                     const std::string& args) {
    return schedule_input(input(app_id, entrypoint, args));
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
    int32_t stream = 0;
    std::string role;
    uint32_t replica = 0;
    std::string data;
  };

  // Reads the logs of app_id with `request` (sortie.log_request/1) until their end or for at
  // most `limit`; `*ended` says whether log_next reported the end.
  Result read_logs(const std::string& app_id, const std::string& request,
                   std::vector<ReadLine>& lines, bool* ended = nullptr,
                   std::chrono::seconds limit = std::chrono::seconds(60)) const {
    int32_t eof = 0;
    const Result result = without_stdout("log_open/log_next", [&](auto*, auto* err) {
      sortie_log_stream* stream = nullptr;
      sortie_status status = table_->log_open(self_, str(app_id), str(request), &stream, err);
      if (status != SORTIE_OK) return status;
      sortie_log_sink sink{&lines, [](void* ctx, const sortie_log_line* line) {
                             static_cast<std::vector<ReadLine>*>(ctx)->push_back(
                                 {line->stream, std::string(line->role.ptr, line->role.len),
                                  line->replica_id, std::string(line->data.ptr, line->data.len)});
                           }};
      const auto deadline = std::chrono::steady_clock::now() + limit;
      while (status == SORTIE_OK && eof == 0 && std::chrono::steady_clock::now() < deadline) {
        status = table_->log_next(stream, 1000, &sink, &eof, err);
      }
      table_->log_close(stream);
      return status;
    });
    if (ended != nullptr) *ended = eof != 0;
    return result;
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

  // ---- What users would notice: replicas, args and env, logs per replica, cancel, fds ----

  // The arguments every probe replica is given after its own, compared byte for byte: what a
  // shell, a job script or a container runtime could mangle.
  static std::vector<std::string> exact_args() {
    return {"plain",
            "two  words",
            "",
            "it's \"quoted\"",
            "$HOME `id` $(id)",
            "back\\slash",
            "tab\there",
            "line\nbreak",
            "\xc3\xbcn\xc3\xaf c\xc3\xb6"
            "d\xc3\xa9",
            "*",
            "--flag=a=b",
            "replica ${replica_id}"};
  }
  static constexpr const char* kEnvValue =
      "two  words 'single' \"double\" $HOME `id` back\\slash\ttab\nline \xc3\xbcn\xc3\xaf =a=b";

  // The app shape the probes run: two roles ("main", "side") of two replicas each, with env,
  // less what the scheduler refuses by name (INVALID_ARGUMENT naming roles, num_replicas or
  // env), found by dry-running. Refusing is honest; running replica 0 only is not.
  struct Shape {
    int roles = 2;
    int replicas = 2;
    bool env = true;
    std::vector<std::string> refusals;  // what the scheduler said, for the PASS notes
  };
  static constexpr const char* kRoleNames[] = {"main", "side"};

  std::string role_json(const std::string& name, const std::vector<std::string>& args,
                        const Shape& shape, const std::filesystem::path& probe) const {
    std::string json =
        R"({"name":)" + quote(name) + "," + image_member() + R"("entrypoint":"sh","args":[)";
    for (size_t i = 0; i < args.size(); ++i) json += (i == 0 ? "" : ",") + quote(args[i]);
    json += "],\"num_replicas\":" + std::to_string(shape.replicas);
    if (shape.env) {
      json += R"(,"env":{"CONFORMANCE_ENV":)" + quote(kEnvValue) +
              R"(,"CONFORMANCE_REPLICA":"${replica_id}"})";
    }
    if (options_.supports.count("mounts") != 0 && !options_.image.empty()) {  // a container
      json += R"(,"mounts":[{"type":"bind","src":)" + quote(probe.string()) + R"(,"dst":)" +
              quote(probe.string()) + "}]";
    }
    return json + "}";
  }

  // An app of `shape` whose every replica runs `sh -c script conformance PROBE ROLE REPLICA
  // [exact args]`, the replica's number given as ${replica_id}.
  std::string probe_input(const std::string& app_id, const Shape& shape, const std::string& script,
                          const std::filesystem::path& probe, bool with_exact_args) const {
    std::vector<std::string> roles;
    for (int r = 0; r < shape.roles; ++r) {
      std::vector<std::string> args = {"-c",           script,        "conformance",
                                       probe.string(), kRoleNames[r], "${replica_id}"};
      if (with_exact_args) {
        for (const std::string& arg : exact_args()) args.push_back(arg);
      }
      roles.push_back(role_json(kRoleNames[r], args, shape, probe));
    }
    return app_input(app_id, roles);
  }

  std::filesystem::path probe_dir(const std::string& name) const {
    const std::filesystem::path dir = state_dir_ / ("probe-" + name);
    std::filesystem::create_directories(dir);
    std::filesystem::permissions(dir, std::filesystem::perms::all);  // any container user
    return dir;
  }

  Shape accepted_shape() {
    Shape shape;
    const std::filesystem::path probe = probe_dir("shape");
    for (;;) {
      const Result dry = dryrun(probe_input("conformance-shape", shape, "true", probe, true));
      if (dry.status == SORTIE_OK) return shape;
      expect(dry.status == SORTIE_INVALID_ARGUMENT,
             "dryrun of an app of " + std::to_string(shape.roles) + " roles of " +
                 std::to_string(shape.replicas) + " replicas: " + describe_result(dry));
      if (shape.replicas > 1 && dry.err.find("replicas") != std::string::npos) {
        shape.replicas = 1;
      } else if (shape.env && dry.err.find("env") != std::string::npos) {
        shape.env = false;
      } else if (shape.roles > 1 && dry.err.find("roles") != std::string::npos) {
        shape.roles = 1;
      } else {
        throw Failure{"a probe app (entrypoint sh, args, " + std::to_string(shape.roles) +
                      " roles of " + std::to_string(shape.replicas) + " replicas" +
                      (shape.env ? ", env" : "") + ") was refused without naming roles, " +
                      "num_replicas or env: " + describe_result(dry)};
      }
      shape.refusals.push_back(dry.err);
    }
  }

  static std::string read_file(const std::filesystem::path& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return "";
    std::string text;
    char buffer[4096];
    for (size_t got; (got = std::fread(buffer, 1, sizeof(buffer), file)) > 0;) {
      text.append(buffer, got);
    }
    std::fclose(file);
    return text;
  }

  static std::string replica_name(int role, int replica) {
    return std::string(kRoleNames[role]) + "." + std::to_string(replica);
  }

  // Every replica of every role writes its arguments, env and number to files, and prints one
  // line to stdout and one to stderr.
  void replicas() {
    shape_ = accepted_shape();
    replicas_probe_ = probe_dir("replicas");
    const char* script =
        "d=$1; r=$2.$3; shift 3\n"
        "echo $# > \"$d/$r.argc\"\n"
        "i=0; for a in \"$@\"; do printf '%s' \"$a\" > \"$d/$r.arg$i\"; i=$((i+1)); done\n"
        "printf '%s' \"$CONFORMANCE_ENV\" > \"$d/$r.env\"\n"
        "printf '%s' \"$CONFORMANCE_REPLICA\" > \"$d/$r.replica\"\n"
        "echo \"out $r\"; echo \"err $r\" >&2\n";
    const std::string app_id = unique_id("replicas");
    replicas_app_ = schedule_input(probe_input(app_id, shape_, script, replicas_probe_, true));
    const std::string state = wait_terminal(replicas_app_);
    std::string missing;
    for (int r = 0; r < shape_.roles; ++r) {
      for (int i = 0; i < shape_.replicas; ++i) {
        if (!std::filesystem::exists(replicas_probe_ / (replica_name(r, i) + ".argc"))) {
          missing += " " + replica_name(r, i);
        }
      }
    }
    std::string found;
    for (const auto& entry : std::filesystem::directory_iterator(replicas_probe_)) {
      if (entry.path().extension() == ".argc") found += " " + entry.path().stem().string();
    }
    expect(missing.empty(), "an app of " + std::to_string(shape_.roles) + " role(s) of " +
                                std::to_string(shape_.replicas) +
                                " replicas each (${replica_id} in the args) ended " + state +
                                "; these replicas never ran:" + missing +
                                " (replicas that ran:" + (found.empty() ? " none" : found) + ")");
    expect(state == "SUCCEEDED", "every replica ran, but the app ended " + state);
    note_ = std::to_string(shape_.roles) + " role(s) x " + std::to_string(shape_.replicas) +
            " replica(s)";
    for (const std::string& refusal : shape_.refusals) note_ += "; refused: " + refusal;
  }

  void args_exact() {
    expect(!replicas_app_.empty(), "needs the app of check 'replicas'");
    for (int r = 0; r < shape_.roles; ++r) {
      for (int i = 0; i < shape_.replicas; ++i) {
        const std::string name = replica_name(r, i);
        std::vector<std::string> expected = exact_args();
        expected.back() = "replica " + std::to_string(i);
        const std::string argc = read_file(replicas_probe_ / (name + ".argc"));
        if (argc.empty()) continue;  // never ran: check 'replicas' says so
        expect(argc == std::to_string(expected.size()) + "\n",
               "replica " + name + " got " +
                   (argc.empty() ? "no" : argc.substr(0, argc.size() - 1)) +
                   " arguments after its own, not " + std::to_string(expected.size()));
        for (size_t a = 0; a < expected.size(); ++a) {
          const std::string got = read_file(replicas_probe_ / (name + ".arg" + std::to_string(a)));
          expect(got == expected[a], "replica " + name + " argument " + std::to_string(a) + " is " +
                                         quote(got) + ", not " + quote(expected[a]));
        }
      }
    }
  }

  void env_exact() {
    expect(!replicas_app_.empty(), "needs the app of check 'replicas'");
    if (!shape_.env) {
      note_ = "env refused by name";
      return;
    }
    for (int r = 0; r < shape_.roles; ++r) {
      for (int i = 0; i < shape_.replicas; ++i) {
        const std::string name = replica_name(r, i);
        if (!std::filesystem::exists(replicas_probe_ / (name + ".argc"))) continue;  // 'replicas'
        const std::string value = read_file(replicas_probe_ / (name + ".env"));
        expect(value == kEnvValue, "replica " + name + " has CONFORMANCE_ENV=" + quote(value) +
                                       ", not " + quote(kEnvValue));
        const std::string replica = read_file(replicas_probe_ / (name + ".replica"));
        expect(replica == std::to_string(i),
               "replica " + name + " has CONFORMANCE_REPLICA=" + quote(replica) +
                   " (set to ${replica_id}), not " + quote(std::to_string(i)));
      }
    }
  }

  // Reads the lines of one replica of the app of 'replicas'; nullopt when refused with a
  // message as UNIMPLEMENTED.
  std::optional<std::vector<ReadLine>> replica_lines(int role, int replica,
                                                     const std::string& extra) const {
    std::vector<ReadLine> lines;
    const Result read =
        read_logs(replicas_app_,
                  R"({"schema":"sortie.log_request/1","role":)" + quote(kRoleNames[role]) +
                      ",\"replica\":" + std::to_string(replica) + extra + "}",
                  lines);
    if (read.status == SORTIE_UNIMPLEMENTED && !read.err.empty()) return std::nullopt;
    expect_ok(read, "reading the logs of " + replica_name(role, replica) + " with" + extra);
    return lines;
  }

  static bool has_line(const std::vector<ReadLine>& lines, const std::string& data) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const ReadLine& line) { return line.data == data; });
  }

  void logs_per_replica() {
    expect(!replicas_app_.empty(), "needs the app of check 'replicas'");
    for (int r = 0; r < shape_.roles; ++r) {
      for (int i = 0; i < shape_.replicas; ++i) {
        const std::string name = replica_name(r, i);
        const auto lines = replica_lines(r, i, "");
        expect(lines.has_value(), "reading one replica's logs answered UNIMPLEMENTED");
        for (const std::string& data : {"out " + name + "\n", "err " + name + "\n"}) {
          expect(has_line(*lines, data), "the logs of replica " + name + " lack its line " +
                                             quote(data) + " (" + std::to_string(lines->size()) +
                                             " lines read)");
        }
        for (const ReadLine& line : *lines) {
          expect(line.role == kRoleNames[r] && line.replica == static_cast<uint32_t>(i),
                 "asking for replica " + name + " read " + quote(line.data) + " attributed to " +
                     line.role + "." + std::to_string(line.replica));
          expect(
              line.data.find(" " + name + "\n") != std::string::npos || line.data.find("out ") != 0,
              "asking for replica " + name + " read another replica's line " + quote(line.data));
        }
      }
    }
  }

  void logs_streams() {
    expect(!replicas_app_.empty(), "needs the app of check 'replicas'");
    const std::string name = replica_name(shape_.roles - 1, shape_.replicas - 1);
    for (const auto& [stream, code] :
         {std::pair<std::string, int32_t>{"stdout", SORTIE_STREAM_STDOUT},
          std::pair<std::string, int32_t>{"stderr", SORTIE_STREAM_STDERR}}) {
      const auto lines =
          replica_lines(shape_.roles - 1, shape_.replicas - 1, ",\"streams\":\"" + stream + "\"");
      if (!lines) {
        note_ = "UNIMPLEMENTED with a message";
        return;
      }
      const std::string wanted = (stream == "stdout" ? "out " : "err ") + name + "\n";
      const std::string other = (stream == "stdout" ? "err " : "out ") + name + "\n";
      expect(has_line(*lines, wanted), "streams=" + stream + " lacks " + quote(wanted));
      expect(!has_line(*lines, other),
             "streams=" + stream + " read the other stream's " + quote(other));
      for (const ReadLine& line : *lines) {
        expect(line.stream == code, "streams=" + stream + " read " + quote(line.data) +
                                        " marked as stream " + std::to_string(line.stream));
      }
    }
  }

  void logs_window() {
    expect(!replicas_app_.empty(), "needs the app of check 'replicas'");
    const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    const int64_t hour_ns = int64_t{3600} * 1000000000;
    const std::string name = replica_name(0, 0);
    const auto wide = replica_lines(0, 0,
                                    ",\"since\":" + std::to_string(kit_start_ns_ - hour_ns) +
                                        ",\"until\":" + std::to_string(now_ns + hour_ns));
    if (!wide) {
      note_ = "UNIMPLEMENTED with a message";
      return;
    }
    expect(has_line(*wide, "out " + name + "\n"),
           "a window from an hour before the kit started to an hour from now lacks the line " +
               quote("out " + name) + " (are the lines timestamped?)");
    const auto later = replica_lines(0, 0, ",\"since\":" + std::to_string(now_ns + hour_ns));
    expect(later && later->empty(),
           "since an hour from now read " + std::to_string(later ? later->size() : 0) + " lines");
    const auto earlier =
        replica_lines(0, 0, ",\"until\":" + std::to_string(kit_start_ns_ - hour_ns));
    expect(earlier && earlier->empty(), "until an hour before the app ran read " +
                                            std::to_string(earlier ? earlier->size() : 0) +
                                            " lines");
  }

  // Schedules a dryrun input; returns the app id.
  std::string schedule_input(const std::string& in) {
    const Result dry = dryrun(in);
    expect_ok(dry, "dryrun");
    const Result scheduled = without_stdout("schedule", [&](auto* out, auto* err) {
      return table_->schedule(self_, str(dry.out), out, err);
    });
    expect_ok(scheduled, "schedule");
    expect(!scheduled.out.empty(), "schedule returned no app id");
    return scheduled.out;
  }

  // Schedules an app whose replicas run until stopped, with the caller's stdout, stderr and one
  // more inheritable descriptor on real pipes; once schedule returns, nothing may hold them.
  void caller_fds() {
    const Shape shape = replicas_app_.empty() ? accepted_shape() : shape_;
    running_probe_ = probe_dir("cancel");
    const char* script =
        "d=$1; r=$2.$3; echo $$ > \"$d/$r.pid\"\n"
        "while :; do echo tick >> \"$d/$r.tick\"; sleep 0.2; done\n";
    const Result dry =
        dryrun(probe_input(unique_id("ticking"), shape, script, running_probe_, false));
    expect_ok(dry, "dryrun");
    Result scheduled;
    sortie::conformance::CallerPipe out_pipe(STDOUT_FILENO), err_pipe(STDERR_FILENO),
        other_pipe(-1);
    sortie_sink out{&scheduled.out, append_to};
    sortie_sink err{&scheduled.err, append_to};
    scheduled.status = table_->schedule(self_, str(dry.out), &out, &err);
    out_pipe.restore();
    err_pipe.restore();
    other_pipe.restore();
    expect_ok(scheduled, "schedule");
    running_app_ = scheduled.out;
    running_shape_ = shape;
    const auto limit = std::chrono::seconds(10);
    const bool out_released = out_pipe.released(limit), err_released = err_pipe.released(limit),
               other_released = other_pipe.released(limit);
    if (!err_pipe.written().empty()) std::cerr << err_pipe.written();
    expect(out_pipe.written().empty(),
           "schedule wrote " + quote(out_pipe.written().substr(0, 80)) + " to stdout (ABI-11)");
    const std::string kept = std::string(out_released ? "" : " stdout (fd 1)") +
                             (err_released ? "" : " stderr (fd 2)") +
                             (other_released ? "" : " an inherited descriptor (fd >= 3)");
    expect(kept.empty(),
           "10 s after schedule returned, what it left running still holds the caller's" + kept +
               ": `x=$(sortie run ...)` or `sortie run ... | cat` would wait for the app "
               "(ABI-11; close or redirect every inherited descriptor)");
  }

  std::map<std::string, uintmax_t> tick_sizes() const {
    std::map<std::string, uintmax_t> sizes;
    for (const auto& entry : std::filesystem::directory_iterator(running_probe_)) {
      if (entry.path().extension() != ".tick") continue;
      std::error_code error;
      sizes[entry.path().stem().string()] = std::filesystem::file_size(entry.path(), error);
    }
    return sizes;
  }

  // A scheduler whose cancel stops nothing leaves the ticking replicas running: the kit ends the
  // ones it can see on this host (each wrote its pid; /proc confirms it is still that replica).
  void kill_leftover_replicas() const {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(running_probe_, error)) {
      if (entry.path().extension() != ".pid") continue;
      const std::string text = read_file(entry.path());
      const pid_t pid = static_cast<pid_t>(std::atol(text.c_str()));
      const std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
      if (pid > 0 && cmdline.find(running_probe_.string()) != std::string::npos) {
        ::kill(pid, SIGKILL);
        std::cerr << "NOTE the kit killed replica " << entry.path().stem().string() << " (pid "
                  << pid << "), still running after cancel\n";
      }
    }
  }

  // The app of 'caller_fds' runs until stopped: once cancel returns, every replica's marker must
  // stop growing within the grace period and the app must read CANCELLED, for good.
  void cancel_running() {
    expect(!running_app_.empty(), "needs the app of check 'caller_fds'");
    const size_t expected = static_cast<size_t>(running_shape_.roles * running_shape_.replicas);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    bool some_started = false;
    for (;;) {
      const size_t started = tick_sizes().size();
      if (started > 0 && !some_started) {  // the others get 10 s more
        some_started = true;
        deadline = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(10));
      }
      if (started == expected || (some_started && std::chrono::steady_clock::now() > deadline)) {
        break;
      }
      const std::string state = state_of(running_app_);
      expect(state != "SUCCEEDED" && state != "FAILED" && state != "CANCELLED",
             "an app whose replicas loop until stopped ended " + state + " by itself");
      expect(std::chrono::steady_clock::now() < deadline,
             running_app_ + " is " + state + " and none of its replicas started in 2 minutes");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const std::string before = state_of(running_app_);  // PENDING: some wait for a slot
    expect(before == "RUNNING" || before == "PENDING",
           "describe says " + before + " while the app's replicas run");
    expect_ok(cancel(running_app_), "cancel of a RUNNING app");
    const auto grace_end = std::chrono::steady_clock::now() + options_.grace;
    for (;;) {
      const auto sizes = tick_sizes();
      std::this_thread::sleep_for(std::chrono::seconds(2));  // ten ticks of a live replica
      const auto later = tick_sizes();
      const std::string state = state_of(running_app_);
      if (sizes == later && state == "CANCELLED") break;
      if (std::chrono::steady_clock::now() < grace_end) continue;
      std::string growing;
      for (const auto& [name, size] : later) {
        if (sizes.count(name) == 0 || sizes.at(name) != size) growing += " " + name;
      }
      throw Failure{"cancel returned OK, but " + std::to_string(options_.grace.count()) +
                    " s later the app is " + state +
                    (growing.empty() ? "" : " and these replicas still run:" + growing)};
    }
    expect_ok(cancel(running_app_), "a second cancel of a CANCELLED app");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const std::string after = state_of(running_app_);
    expect(after == "CANCELLED", "a CANCELLED app changed state to " + after);
  }

  // Follows an app from its start: the lines printed later arrive and the stream ends when the
  // app does, or log_open answers UNIMPLEMENTED with a message.
  void logs_follow() {
    const std::string app_id = schedule_input(
        input(unique_id("follow"), "sh", R"(["-c","echo first; sleep 3; echo last"])"));
    std::vector<ReadLine> lines;
    bool ended = false;
    Result read;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    do {  // a backend may not know the app's logs before it starts
      lines.clear();
      read = read_logs(app_id, R"({"schema":"sortie.log_request/1","follow":true})", lines, &ended,
                       std::chrono::seconds(120));
      if (read.status != SORTIE_NOT_FOUND) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    } while (std::chrono::steady_clock::now() < deadline);
    if (read.status == SORTIE_UNIMPLEMENTED && !read.err.empty()) {
      note_ = "UNIMPLEMENTED with a message";
      return;
    }
    expect_ok(read, "following the logs of " + app_id);
    expect(ended, "following " + app_id + " did not end within 2 minutes");
    expect(has_line(lines, "first\n") && has_line(lines, "last\n"),
           "following an app that printed 'first', waited 3 s and printed 'last' read " +
               std::to_string(lines.size()) + " lines, without both");
    const std::string state = state_of(app_id);
    expect(state == "SUCCEEDED", "the followed app is " + state + " when its logs end");
  }

  Options options_;
  const sortie_scheduler_vtable* table_ = nullptr;
  sortie_scheduler* self_ = nullptr;
  std::filesystem::path state_dir_;
  std::string finished_app_;
  Shape shape_;
  std::string replicas_app_;  // of check 'replicas', ended
  std::filesystem::path replicas_probe_;
  Shape running_shape_;
  std::string running_app_;  // of check 'caller_fds', running until cancel_running
  std::filesystem::path running_probe_;
  const int64_t kit_start_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
  std::string note_;  // said after PASS
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
    else if (flag == "--grace")
      options.grace = std::chrono::seconds(std::stoi(value));
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
                 " [--supports FIELD]... [--skip CHECK]... [--unimplemented logs] [--grace S]\n";
    return 2;
  }
  return Conformance(std::move(options)).run();
}
