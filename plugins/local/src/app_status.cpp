#include "app_status.hpp"

#include <sortie/app_status.hpp>

#include "containment.hpp"
#include "json_fields.hpp"

namespace sortie::local {
namespace {

void write_optional_time(JsonWriter& writer, const char* key, int64_t value) {
  writer.Key(key);
  if (value > 0) {
    writer.Int64(value);
  } else {
    writer.Null();
  }
}

void write_roles(JsonWriter& writer, const AppStatus& status) {
  writer.Key("roles");
  writer.StartArray();
  for (const RoleStatus& role : status.roles) {
    writer.StartObject();
    writer.Key("role");
    write_string(writer, role.role);
    writer.Key("replicas");
    writer.StartArray();
    for (const ReplicaStatus& replica : role.replicas) {
      writer.StartObject();
      writer.Key("id");
      writer.Uint(replica.id);
      writer.Key("state");
      write_string(writer, replica.state);
      writer.Key("pid");
      if (replica.pid > 0) {
        writer.Int64(replica.pid);
      } else {
        writer.Null();
      }
      writer.Key("pgid");
      writer.Int64(replica.pgid);
      writer.Key("exit_code");
      if (replica.exit_code.has_value()) {
        writer.Int(*replica.exit_code);
      } else {
        writer.Null();
      }
      writer.Key("restarts");
      writer.Int64(replica.restarts);
      write_optional_time(writer, "started_at", replica.started_at);
      write_optional_time(writer, "finished_at", replica.finished_at);
      writer.Key("msg");
      write_string(writer, replica.msg);
      writer.EndObject();
    }
    writer.EndArray();
    writer.EndObject();
  }
  writer.EndArray();
}

void write_common(JsonWriter& writer, const AppStatus& status) {
  writer.Key("app_id");
  write_string(writer, status.app_id);
  writer.Key("state");
  write_string(writer, status.state);
  writer.Key("num_restarts");
  writer.Int64(status.num_restarts);
  writer.Key("msg");
  write_string(writer, status.msg);
}

}  // namespace

std::string to_state_json(const AppStatus& status) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("schema");
  writer.String("sortie.local_state/1");
  write_common(writer, status);
  writer.Key("name");
  write_string(writer, status.name);
  writer.Key("session");
  write_string(writer, status.session);
  writer.Key("supervisor");
  writer.StartObject();
  writer.Key("pid");
  writer.Int64(status.supervisor_pid);
  writer.Key("start_time");
  writer.Uint64(status.supervisor_start_time);
  writer.EndObject();
  writer.Key("containment");
  write_string(writer, status.containment);
  if (!status.cgroup.empty()) {
    writer.Key("cgroup");
    write_string(writer, status.cgroup);
  }
  write_roles(writer, status);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

AppStatus parse_state_json(std::string_view text, std::string_view path) {
  const rapidjson::Document document = parse_object(text, path);
  AppStatus status;
  status.app_id = string_member(document, "app_id", path);
  status.name = string_member(document, "name", path);
  status.session = string_member(document, "session", path);
  status.state = string_member(document, "state", path, "UNKNOWN");
  status.num_restarts = int_member(document, "num_restarts", path, 0);
  status.msg = string_member(document, "msg", path);
  if (const rapidjson::Value* supervisor = object_member(document, "supervisor", path)) {
    status.supervisor_pid = int_member(*supervisor, "pid", path, 0);
    status.supervisor_start_time =
        static_cast<uint64_t>(int_member(*supervisor, "start_time", path, 0));
  }
  status.containment = string_member(document, "containment", path);
  status.cgroup = string_member(document, "cgroup", path);
  if (const rapidjson::Value* roles = array_member(document, "roles", path)) {
    for (const rapidjson::Value& role_value : roles->GetArray()) {
      RoleStatus role;
      role.role = string_member(role_value, "role", path);
      if (const rapidjson::Value* replicas = array_member(role_value, "replicas", path)) {
        for (const rapidjson::Value& value : replicas->GetArray()) {
          ReplicaStatus replica;
          replica.id = static_cast<uint32_t>(int_member(value, "id", path, 0));
          replica.state = string_member(value, "state", path, "UNKNOWN");
          replica.pid = int_member(value, "pid", path, 0);
          replica.pgid = int_member(value, "pgid", path, 0);
          if (find_member(value, "exit_code") != nullptr) {
            replica.exit_code = static_cast<int>(int_member(value, "exit_code", path, 0));
          }
          replica.restarts = int_member(value, "restarts", path, 0);
          replica.started_at = int_member(value, "started_at", path, 0);
          replica.finished_at = int_member(value, "finished_at", path, 0);
          replica.msg = string_member(value, "msg", path);
          role.replicas.push_back(std::move(replica));
        }
      }
      status.roles.push_back(std::move(role));
    }
  }
  return status;
}

std::string to_status_payload(const AppStatus& status, std::string_view ui_url) {
  // 0 is how state.json says "not known yet".
  const auto known = [](int64_t value) {
    return value > 0 ? std::optional<int64_t>(value) : std::nullopt;
  };
  sortie::AppStatus payload;
  payload.app_id = status.app_id;
  payload.state = app_state_or_unknown(status.state);
  payload.num_restarts = status.num_restarts;
  payload.msg = status.msg;
  // While the app runs, its message says what becomes of its processes (docs/local-scheduler.md).
  if (payload.msg.empty() && !is_terminal(status.state) && !status.containment.empty()) {
    payload.msg = "processes: " + containment_guarantee(status.containment);
  }
  payload.ui_url = ui_url;
  for (const RoleStatus& role : status.roles) {
    sortie::RoleStatus& written = payload.roles.emplace_back();
    written.role = role.role;
    for (const ReplicaStatus& replica : role.replicas) {
      std::optional<int64_t> exit_code;
      if (replica.exit_code) exit_code = *replica.exit_code;
      written.replicas.push_back({replica.id, app_state_or_unknown(replica.state),
                                  known(replica.pid), exit_code, "localhost", replica.restarts,
                                  known(replica.started_at), known(replica.finished_at),
                                  replica.msg});
    }
  }
  payload.metadata = {{"session", json_string(status.session)},
                      {"supervisor_pid", std::to_string(status.supervisor_pid)},
                      {"containment", json_string(status.containment)}};
  return write_status(payload);
}

}  // namespace sortie::local
