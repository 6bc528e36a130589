#include "app_status.hpp"

#include <utility>

#include "containment.hpp"
#include "json_fields.hpp"

namespace sortie::local {
namespace {

// state.json keeps the format it had when it was written by hand: 0 for "not known yet" in
// supervisor.pid and pgid, null in pid, exit_code and the times.
void write_optional(plugins_common::JsonWriter& writer, const char* key,
                    std::optional<int64_t> value) {
  writer.Key(key);
  if (value) {
    writer.Int64(*value);
  } else {
    writer.Null();
  }
}

std::optional<int64_t> optional_member(const rapidjson::Value& object, const char* key,
                                       std::string_view path) {
  const int64_t value = plugins_common::int_member(object, key, path, 0);
  return value > 0 ? std::optional<int64_t>(value) : std::nullopt;
}

void write_roles(plugins_common::JsonWriter& writer, const AppStatus& status) {
  writer.Key("roles");
  writer.StartArray();
  for (const RoleStatus& role : status.roles) {
    writer.StartObject();
    writer.Key("role");
    plugins_common::write_string(writer, role.role);
    writer.Key("replicas");
    writer.StartArray();
    for (const ReplicaStatus& replica : role.replicas) {
      writer.StartObject();
      writer.Key("id");
      writer.Int64(replica.id);
      writer.Key("state");
      plugins_common::write_string(writer, std::string(app_state_name(replica.state)));
      write_optional(writer, "pid", replica.pid);
      writer.Key("pgid");  // each replica leads its own process group
      writer.Int64(replica.pid.value_or(0));
      write_optional(writer, "exit_code", replica.exit_code);
      writer.Key("restarts");
      writer.Int64(replica.restarts);
      write_optional(writer, "started_at", replica.started_at);
      write_optional(writer, "finished_at", replica.finished_at);
      writer.Key("msg");
      plugins_common::write_string(writer, replica.msg);
      writer.EndObject();
    }
    writer.EndArray();
    writer.EndObject();
  }
  writer.EndArray();
}

}  // namespace

AppState state_of(ProcessFate fate) {
  static constexpr std::pair<ProcessFate, AppState> kStates[] = {
      {ProcessFate::kNotStarted, AppState::kPending},
      {ProcessFate::kRunning, AppState::kRunning},
      {ProcessFate::kExitedZero, AppState::kSucceeded},
      {ProcessFate::kFailed, AppState::kFailed},
      {ProcessFate::kStoppedBySortie, AppState::kCancelled},
  };
  return state_in(kStates, fate);
}

std::string to_state_json(const LocalApp& app) {
  const AppStatus& status = app.status;
  rapidjson::StringBuffer buffer;
  plugins_common::JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("schema");
  writer.String("sortie.local_state/1");
  writer.Key("app_id");
  plugins_common::write_string(writer, status.app_id);
  writer.Key("state");
  plugins_common::write_string(writer, std::string(app_state_name(status.state)));
  writer.Key("num_restarts");
  writer.Int64(status.num_restarts);
  writer.Key("msg");
  plugins_common::write_string(writer, status.msg);
  writer.Key("name");
  plugins_common::write_string(writer, app.name);
  writer.Key("session");
  plugins_common::write_string(writer, app.session);
  writer.Key("supervisor");
  writer.StartObject();
  writer.Key("pid");
  writer.Int64(app.supervisor.pid.value_or(0));
  writer.Key("start_time");
  writer.Uint64(app.supervisor.start_time);
  writer.EndObject();
  writer.Key("containment");
  plugins_common::write_string(writer, app.supervisor.containment);
  if (!app.supervisor.cgroup.empty()) {
    writer.Key("cgroup");
    plugins_common::write_string(writer, app.supervisor.cgroup);
  }
  write_roles(writer, status);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

LocalApp parse_state_json(std::string_view text, std::string_view path) {
  const rapidjson::Document document = plugins_common::parse_object(text, path);
  LocalApp app;
  AppStatus& status = app.status;
  status.app_id = plugins_common::string_member(document, "app_id", path);
  app.name = plugins_common::string_member(document, "name", path);
  app.session = plugins_common::string_member(document, "session", path);
  status.state = app_state_or_unknown(plugins_common::string_member(document, "state", path));
  status.num_restarts = plugins_common::int_member(document, "num_restarts", path, 0);
  status.msg = plugins_common::string_member(document, "msg", path);
  if (const rapidjson::Value* supervisor =
          plugins_common::object_member(document, "supervisor", path)) {
    app.supervisor.pid = optional_member(*supervisor, "pid", path);
    app.supervisor.start_time =
        static_cast<uint64_t>(plugins_common::int_member(*supervisor, "start_time", path, 0));
  }
  app.supervisor.containment = plugins_common::string_member(document, "containment", path);
  app.supervisor.cgroup = plugins_common::string_member(document, "cgroup", path);
  if (const rapidjson::Value* roles = plugins_common::array_member(document, "roles", path)) {
    for (const rapidjson::Value& role_value : roles->GetArray()) {
      RoleStatus& role = status.roles.emplace_back();
      role.role = plugins_common::string_member(role_value, "role", path);
      if (const rapidjson::Value* replicas =
              plugins_common::array_member(role_value, "replicas", path)) {
        for (const rapidjson::Value& value : replicas->GetArray()) {
          ReplicaStatus& replica = role.replicas.emplace_back();
          replica.id = plugins_common::int_member(value, "id", path, 0);
          replica.state = app_state_or_unknown(plugins_common::string_member(value, "state", path));
          replica.pid = optional_member(value, "pid", path);
          if (plugins_common::find_member(value, "exit_code") != nullptr) {
            replica.exit_code = plugins_common::int_member(value, "exit_code", path, 0);
          }
          replica.restarts = plugins_common::int_member(value, "restarts", path, 0);
          replica.started_at = optional_member(value, "started_at", path);
          replica.finished_at = optional_member(value, "finished_at", path);
          replica.msg = plugins_common::string_member(value, "msg", path);
        }
      }
    }
  }
  return app;
}

std::string to_status_payload(const LocalApp& app, std::string_view ui_url) {
  AppStatus payload = app.status;
  // While the app runs, its message says what becomes of its processes (docs/local-scheduler.md).
  if (payload.msg.empty() && !is_terminal(payload.state) && !app.supervisor.containment.empty()) {
    payload.msg = "processes: " + containment_guarantee(app.supervisor.containment);
  }
  payload.ui_url = ui_url;
  for (RoleStatus& role : payload.roles) {
    for (ReplicaStatus& replica : role.replicas) replica.hostname = "localhost";
  }
  payload.metadata = {
      {"session", json_string(app.session)},
      {"supervisor_pid", app.supervisor.pid ? std::to_string(*app.supervisor.pid) : "null"},
      {"containment", json_string(app.supervisor.containment)}};
  return write_status(payload);
}

}  // namespace sortie::local
