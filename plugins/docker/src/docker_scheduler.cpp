#include "docker_scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sortie/app_list.hpp>
#include <sortie/log_request.hpp>

#include "image_transfer.hpp"
#include "json_fields.hpp"
#include "labels.hpp"
#include "log_stream.hpp"
#include "run_options.hpp"

namespace sortie::docker {
namespace {

// Longest a wait() blocks on the Engine's event stream before answering: the host re-asks, and
// meanwhile notices its own signals (SIGINT).
constexpr int64_t kWaitSliceMs = 1000;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t monotonic_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

SchedulerContext read_config(std::string_view config) {
  const std::string what = "sortie.scheduler_config/1";
  const rapidjson::Document document = plugins_common::parse_object(config, what);
  SchedulerContext context;
  context.scheduler_name =
      plugins_common::string_member(document, "scheduler", what, "local_docker");
  context.session = plugins_common::string_member(document, "session", what, "default");
  context.state_dir = plugins_common::string_member(document, "state_dir", what);
  if (context.state_dir.empty() || context.state_dir[0] != '/') {
    throw Error::invalid_argument(context.scheduler_name + ": " + what +
                                  " member 'state_dir' must be an absolute path");
  }
  return context;
}

std::string label_filter_query(const std::vector<std::string>& label_filters) {
  std::string filters = R"({"label":[)";
  for (size_t i = 0; i < label_filters.size(); ++i) {
    filters += (i == 0 ? "" : ",") + plugins_common::quote(label_filters[i]);
  }
  return http::url_encode(filters + "]}");
}

std::string label(const rapidjson::Value& labels, const char* key) {
  return plugins_common::string_member(labels, key, "container labels");
}

int64_t label_number(const rapidjson::Value& labels, const char* key, int64_t fallback) {
  const std::string text = label(labels, key);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return fallback;
  return std::stoll(text);
}

// The exit code in a container list entry's Status ("Exited (137) 5 seconds ago"), or -1.
int64_t listed_exit_code(const std::string& status) {
  const size_t open = status.find('(');
  const size_t close = status.find(')', open);
  if (status.rfind("Exited", 0) != 0 || open == std::string::npos || close == std::string::npos) {
    return -1;
  }
  const std::string number = status.substr(open + 1, close - open - 1);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(number);
}

AppState state_of_payload(const std::string& payload) { return read_status(payload).state; }

}  // namespace

DockerScheduler::DockerScheduler(std::string_view config)
    : context_(read_config(config)), records_(context_.state_dir) {}

Engine& DockerScheduler::engine() {
  if (engine_ == nullptr) engine_ = std::make_unique<Engine>(docker_socket_from_environment());
  return *engine_;
}

std::string DockerScheduler::run_options() { return run_options_payload(); }

std::string DockerScheduler::dryrun(std::string_view input) {
  return build_dryrun(input, context_);
}

std::vector<DockerScheduler::Container> DockerScheduler::containers(
    const std::vector<std::string>& label_filters) {
  const rapidjson::Document list = engine().expect_json(
      "GET", "/containers/json?all=1&filters=" + label_filter_query(label_filters),
      "listing containers");
  std::vector<Container> out;
  if (!list.IsArray()) return out;
  for (const rapidjson::Value& entry : list.GetArray()) {
    const rapidjson::Value* labels = plugins_common::object_member(entry, "Labels", "container");
    if (labels == nullptr) continue;
    Container container;
    container.id = plugins_common::string_member(entry, "Id", "container");
    if (const rapidjson::Value* names = plugins_common::array_member(entry, "Names", "container");
        names != nullptr && !names->Empty() && (*names)[0].IsString()) {
      container.name = (*names)[0].GetString();
      if (!container.name.empty() && container.name[0] == '/') container.name.erase(0, 1);
    }
    container.app_id = label(*labels, labels::kAppId);
    container.role = label(*labels, labels::kRole);
    container.role_index = label_number(*labels, labels::kRoleIndex, 0);
    container.replica_id = label_number(*labels, labels::kReplicaId, 0);
    container.num_replicas = label_number(*labels, labels::kNumReplicas, 1);
    container.app_name = label(*labels, labels::kAppName);
    container.session = label(*labels, labels::kSession);
    container.state = plugins_common::string_member(entry, "State", "container");
    container.status = plugins_common::string_member(entry, "Status", "container");
    out.push_back(std::move(container));
  }
  std::sort(out.begin(), out.end(), [](const Container& a, const Container& b) {
    return std::tie(a.role_index, a.replica_id) < std::tie(b.role_index, b.replica_id);
  });
  return out;
}

std::optional<DockerApp> DockerScheduler::load_status(std::string_view app_id) {
  std::optional<AppRecord> record = records_.load(app_id);
  const std::vector<Container> found =
      containers({std::string(labels::kAppId) + "=" + std::string(app_id)});
  if (found.empty() && !record) return std::nullopt;

  DockerApp app;
  AppStatus& status = app.status;
  status.app_id = std::string(app_id);
  std::vector<RoleLayout> layout;
  if (record) {
    app.name = record->name;
    app.session = record->session;
    layout = record->roles;
  }
  for (const Container& container : found) {
    if (app.name.empty()) app.name = container.app_name;
    if (app.session.empty()) app.session = container.session;
    const bool known = std::any_of(layout.begin(), layout.end(),
                                   [&](const RoleLayout& r) { return r.name == container.role; });
    if (!known) layout.push_back({container.role, container.num_replicas});
  }
  for (const RoleLayout& role : layout) {
    RoleStatus& written = status.roles.emplace_back();
    written.role = role.name;
    for (int64_t id = 0; id < role.num_replicas; ++id) {
      ReplicaStatus& replica = written.replicas.emplace_back();
      replica.id = id;
      replica.state = AppState::kPending;
      if (record && !record->failure.empty()) {
        replica.state = AppState::kFailed;
        replica.msg = record->failure;
      }
    }
  }
  for (const Container& container : found) {
    const rapidjson::Document inspect = engine().expect_json(
        "GET", "/containers/" + container.id + "/json", "inspecting container " + container.name);
    InspectedContainer inspected = read_inspect(inspect);
    ReplicaStatus& replica = inspected.replica;
    replica.id = container.replica_id;
    inspected.container.role = container.role;
    inspected.container.replica_id = container.replica_id;
    if (record && std::find(record->stopped.begin(), record->stopped.end(),
                            inspected.container.name) != record->stopped.end()) {
      if (replica.state != AppState::kSucceeded) {
        replica.state = AppState::kCancelled;
        replica.msg = "stopped because another replica failed";
      }
    }
    if (ReplicaStatus* slot = find_replica(status, container.role, replica.id)) {
      *slot = std::move(replica);
    } else {
      for (RoleStatus& role : status.roles) {
        if (role.role == container.role) role.replicas.push_back(std::move(replica));
      }
    }
    app.containers.push_back(std::move(inspected.container));
  }
  derive_app_state(status);
  if (record && !record->failure.empty()) {
    status.state = AppState::kFailed;
    status.msg = record->failure;
  }

  if (status.state == AppState::kFailed) {
    // As on local: once a replica failed for good, nothing of the app is left running.
    std::vector<std::string> live;
    int64_t grace = 0;
    for (ContainerFacts& container : app.containers) {
      if (!container.live) continue;
      live.push_back(container.name);
      grace = std::max(grace, container.stop_timeout_s);
      container.live = false;
      if (ReplicaStatus* replica = find_replica(status, container.role, container.replica_id)) {
        replica->state = AppState::kCancelled;
        replica->msg = "stopped because another replica failed";
        replica->pid.reset();
      }
    }
    if (!live.empty()) {
      AppRecord updated =
          record ? *record : AppRecord{status.app_id, app.name, app.session, {}, "", "", {}};
      if (updated.roles.empty()) {
        for (const RoleStatus& role : status.roles) {
          updated.roles.push_back({role.role, static_cast<int64_t>(role.replicas.size())});
        }
      }
      updated.stopped.insert(updated.stopped.end(), live.begin(), live.end());
      records_.store(updated);
      stop_and_remove(live, grace, false);
    }
  }
  if (is_terminal(status.state) && !found.empty()) {
    // Finished apps keep their containers (and logs) but not their network. Best effort: a
    // container still stopping keeps it until the next describe.
    engine().call("DELETE", "/networks/" + http::url_encode(network_name(app_id)));
  }
  return app;
}

void DockerScheduler::stop_and_remove(const std::vector<std::string>& names, int64_t grace_seconds,
                                      bool remove) {
  // SIGTERM to all at once, then stop each with what is left of one shared grace period, so N
  // containers that ignore SIGTERM cost one grace period, not N.
  for (const std::string& name : names) {
    engine().call("POST", "/containers/" + http::url_encode(name) + "/kill?signal=SIGTERM");
  }
  const int64_t deadline = monotonic_ms() + grace_seconds * 1000;
  for (const std::string& name : names) {
    const int64_t left_s = std::max<int64_t>(0, (deadline - monotonic_ms() + 999) / 1000);
    engine().call("POST",
                  "/containers/" + http::url_encode(name) + "/stop?t=" + std::to_string(left_s), "",
                  (left_s + 30) * 1000);
  }
  if (!remove) return;
  for (const std::string& name : names) {
    const http::Response response =
        engine().call("DELETE", "/containers/" + http::url_encode(name) + "?force=1&v=1");
    if (!response.ok() && response.status != 404) {
      throw Error::unavailable("removing container " + name + ": the Docker Engine answered " +
                               std::to_string(response.status) + ": " +
                               engine_message(response.body));
    }
  }
}

std::string DockerScheduler::schedule(std::string_view request_text) {
  const std::string what = "sortie.dryrun/1";
  const rapidjson::Document document = plugins_common::parse_object(request_text, what);
  const rapidjson::Value* request = plugins_common::object_member(document, "request", what);
  if (request == nullptr) {
    throw Error::invalid_argument(what + ": member 'request' is required");
  }
  const AppPlan plan = read_plan(*request);
  if (plugins_common::string_member(document, "app_id", what) != plan.app_id) {
    throw Error::invalid_argument(
        what + ": app_id differs from the request's; schedule the document dryrun() wrote");
  }
  if (records_.load(plan.app_id)) {
    throw Error::already_exists(context_.scheduler_name + ": app '" + plan.app_id +
                                "' exists already; dry-run again for a fresh app id");
  }

  for (const PushPlan& push : plan.pushes) {
    push_image(engine(), push.source, push.repository, push.tag);
  }
  AppRecord record{plan.app_id, plan.app_name, plan.session, plan.roles, "", "", {}};
  records_.store(record);

  // From here on a failure is the app's: it ends FAILED with the Engine's message in `status`.
  std::vector<std::string> created;
  try {
    for (const std::string& image : plan.images) ensure_image(engine(), image);
    const rapidjson::Value* network = plugins_common::object_member(*request, "network", what);
    engine().expect("POST", "/networks/create", "creating network " + plan.network,
                    plugins_common::to_json_text(*network));
    for (const ContainerPlan& container : plan.containers) {
      engine().expect("POST", "/containers/create?name=" + http::url_encode(container.name),
                      "creating container " + container.name, container.create_body);
      created.push_back(container.name);
    }
  } catch (const Error& error) {
    if (error.code() == Code::kUnavailable && created.empty() &&
        std::string_view(error.what()).find("the Docker Engine at") != std::string_view::npos) {
      throw;  // the Engine itself is unreachable: nothing was submitted
    }
    record.failure = error.what();
    records_.store(record);
    for (const std::string& name : created) {
      engine().call("DELETE", "/containers/" + http::url_encode(name) + "?force=1&v=1");
    }
    engine().call("DELETE", "/networks/" + http::url_encode(plan.network));
    return plan.app_id;
  }
  // A container that cannot start (command not found, no GPU driver) keeps the Engine's error in
  // its state; describe() reports it and stops the others.
  for (const ContainerPlan& container : plan.containers) {
    engine().call("POST", "/containers/" + http::url_encode(container.name) + "/start");
  }
  return plan.app_id;
}

std::string DockerScheduler::describe(std::string_view app_id) {
  if (const std::optional<AppRecord> record = records_.load(app_id);
      record && !record->final_status.empty()) {
    return record->final_status;
  }
  const std::optional<DockerApp> status = load_status(app_id);
  if (!status) {
    throw Error::not_found(context_.scheduler_name + ": no app '" + std::string(app_id) +
                           "' (no container labelled " + labels::kAppId + "=" +
                           std::string(app_id) + " and no record in " + context_.state_dir +
                           "/apps)");
  }
  return to_status_payload(*status);
}

std::string DockerScheduler::list(std::string_view filter_text) {
  const std::string session = read_list_filter(filter_text).session;
  std::vector<std::string> filters = {std::string(labels::kScheduler) + "=" +
                                      context_.scheduler_name};
  if (!session.empty()) filters.push_back(std::string(labels::kSession) + "=" + session);

  struct Listed {
    std::string name;
    AppState state = AppState::kUnknown;
    bool needs_describe = false;  // a failure, whose message and cleanup only describe() has
    AppStatus replicas;           // coarse replica states from the container list
  };
  std::map<std::string, Listed> apps;
  for (const Container& container : containers(filters)) {
    Listed& listed = apps[container.app_id];
    listed.name = container.app_name;
    if (listed.replicas.roles.empty()) listed.replicas.roles.emplace_back();
    ReplicaStatus replica;
    replica.state = state_of(container.state);
    if (container.state == "exited" && listed_exit_code(container.status) != 0) {
      replica.state = AppState::kFailed;
    }
    listed.needs_describe =
        listed.needs_describe || replica.state == AppState::kFailed || container.state == "created";
    listed.replicas.roles.front().replicas.push_back(replica);
  }
  for (auto& [app_id, listed] : apps) {
    if (listed.needs_describe) {
      listed.state = state_of_payload(describe(app_id));
    } else {
      derive_app_state(listed.replicas);
      listed.state = listed.replicas.state;
    }
  }
  for (const std::string& app_id : records_.app_ids()) {
    if (apps.count(app_id) != 0) continue;
    const std::optional<AppRecord> record = records_.load(app_id);
    if (!record || (!session.empty() && record->session != session)) continue;
    AppState state = AppState::kUnknown;  // its containers were removed by hand
    if (!record->final_status.empty()) {
      state = state_of_payload(record->final_status);
    } else if (!record->failure.empty()) {
      state = AppState::kFailed;
    }
    apps[app_id].name = record->name;
    apps[app_id].state = state;
  }

  std::vector<ListedApp> listed_apps;
  for (const auto& [app_id, listed] : apps) {
    listed_apps.push_back({app_id, listed.name, listed.state});
  }
  return write_app_list(listed_apps);
}

void DockerScheduler::cancel(std::string_view app_id) {
  std::optional<AppRecord> record = records_.load(app_id);
  if (record && !record->final_status.empty()) return;  // cancelled before
  std::optional<DockerApp> app = load_status(app_id);
  if (!app) {
    throw Error::not_found(context_.scheduler_name + ": no app '" + std::string(app_id) +
                           "' to cancel");
  }
  AppStatus& status = app->status;
  if (is_terminal(status.state)) return;

  // The outcome is recorded first, so a describe racing with the removal reads CANCELLED.
  std::vector<std::string> names;
  int64_t grace = 0;
  for (const ContainerFacts& container : app->containers) {
    names.push_back(container.name);
    grace = std::max(grace, container.stop_timeout_s);
  }
  for (RoleStatus& role : status.roles) {
    for (ReplicaStatus& replica : role.replicas) {
      if (is_terminal(replica.state)) continue;
      replica.state = AppState::kCancelled;
      replica.msg = "cancelled";
      replica.pid.reset();
      replica.finished_at = now_ns();
    }
  }
  status.state = AppState::kCancelled;
  status.msg = "cancelled; its containers and network were removed";
  AppRecord updated =
      record ? *record : AppRecord{status.app_id, app->name, app->session, {}, "", "", {}};
  if (updated.roles.empty()) {
    for (const RoleStatus& role : status.roles) {
      updated.roles.push_back({role.role, static_cast<int64_t>(role.replicas.size())});
    }
  }
  updated.final_status = to_status_payload(*app);
  records_.store(updated);
  stop_and_remove(names, grace, true);
  const http::Response response =
      engine().call("DELETE", "/networks/" + http::url_encode(network_name(app_id)));
  if (!response.ok() && response.status != 404) {
    throw Error::unavailable("removing network " + network_name(app_id) +
                             ": the Docker Engine answered " + std::to_string(response.status) +
                             ": " + engine_message(response.body));
  }
}

std::string DockerScheduler::wait(std::string_view app_id, std::string_view known_state,
                                  int64_t timeout_ms) {
  const int64_t deadline = monotonic_ms() + timeout_ms;
  for (;;) {
    const int64_t since = now_ns();
    const std::string payload = describe(app_id);
    const int64_t remaining = timeout_ms < 0 ? kWaitSliceMs : deadline - monotonic_ms();
    if (known_state.empty() || app_state_name(state_of_payload(payload)) != known_state ||
        remaining <= 0) {
      return payload;
    }
    // Any event of the app's containers since just before describe() may change its state; the
    // Engine replays those that happened in between, so none is missed.
    http::Request request;
    const std::string filters =
        std::string(R"({"type":["container"],"label":[)") +
        plugins_common::quote(std::string(labels::kAppId) + "=" + std::string(app_id)) + "]}";
    char since_text[40];
    std::snprintf(since_text, sizeof(since_text), "%lld.%09lld",
                  static_cast<long long>(since / 1000000000),
                  static_cast<long long>(since % 1000000000));
    request.path =
        "/events?since=" + std::string(since_text) + "&filters=" + http::url_encode(filters);
    request.timeout_ms = std::min(remaining, kWaitSliceMs);
    bool event = false;
    try {
      engine().stream(request, [&](std::string_view) {
        event = true;
        return false;
      });
    } catch (const Error& error) {
      if (error.code() != Code::kDeadlineExceeded) throw;
    }
    if (!event) return describe(app_id);
  }
}

std::unique_ptr<LogStream> DockerScheduler::log_open(std::string_view app_id,
                                                     std::string_view request_text) {
  const LogRequest request = read_log_request(request_text);
  if (request.tail) {
    throw Error::unimplemented(context_.scheduler_name +
                               ": 'tail' in a log request is not supported; read the whole log");
  }
  if (request.streams == LogStreams::kMetrics) {
    throw Error::unimplemented(context_.scheduler_name +
                               ": the log stream 'metrics' is not served; SORTIE_METRICS_FILE is "
                               "not set in containers (report measurements in log lines)");
  }
  const std::string& role = request.role;

  const std::optional<AppRecord> record = records_.load(app_id);
  const std::vector<Container> found =
      containers({std::string(labels::kAppId) + "=" + std::string(app_id)});
  if (found.empty()) {
    if (record && !record->final_status.empty()) {
      throw Error::not_found("app '" + std::string(app_id) +
                             "' was cancelled: its containers, and their logs, were "
                             "removed");
    }
    if (!record) {
      throw Error::not_found(context_.scheduler_name + ": no app '" + std::string(app_id) + "'");
    }
  }
  std::vector<LogTarget> targets;
  std::string roles_seen;
  bool role_known = role.empty();
  for (const Container& container : found) {
    if (roles_seen.find("'" + container.role + "'") == std::string::npos) {
      roles_seen += (roles_seen.empty() ? "'" : ", '") + container.role + "'";
    }
    if (!role.empty() && container.role != role) continue;
    role_known = true;
    if (!request.selects(container.role, container.replica_id)) continue;
    targets.push_back(
        {container.name, container.role, static_cast<uint32_t>(container.replica_id)});
  }
  if (!role_known) {
    throw Error::not_found("app '" + std::string(app_id) + "' has no role '" + role +
                           "' (roles: " + roles_seen + ")");
  }
  if (request.replica && targets.empty() && !found.empty()) {
    throw Error::not_found("app '" + std::string(app_id) + "' has no replica " +
                           std::to_string(*request.replica) +
                           (role.empty() ? "" : " in role '" + role + "'"));
  }
  const std::string version = found.empty() ? "" : engine().api_version();
  return std::make_unique<DockerLogStream>(engine().socket_path(), version, std::move(targets),
                                           request);
}

}  // namespace sortie::docker
