#include <sortie/app_status.hpp>

#include "payload_reader.hpp"
#include "payload_writer.hpp"

namespace sortie {

std::string write_status(const AppStatus& status) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.status/1");
  w.member("app_id", status.app_id);
  w.member("state", app_state_name(status.state));
  w.member("num_restarts", status.num_restarts);
  w.member("msg", status.msg);
  w.member("ui_url", status.ui_url);
  w.member("structured_error_msg", status.structured_error_msg);
  w.key("roles");
  w.json().StartArray();
  for (const RoleStatus& role : status.roles) {
    w.json().StartObject();
    w.member("role", role.role);
    w.key("replicas");
    w.json().StartArray();
    for (const ReplicaStatus& replica : role.replicas) {
      w.json().StartObject();
      w.member("id", replica.id);
      w.member("state", app_state_name(replica.state));
      w.member("pid", replica.pid);
      w.member("exit_code", replica.exit_code);
      w.member("hostname", replica.hostname);
      w.member("restarts", replica.restarts);
      w.member("started_at", replica.started_at);
      w.member("finished_at", replica.finished_at);
      w.member("msg", replica.msg);
      w.json().EndObject();
    }
    w.json().EndArray();
    w.json().EndObject();
  }
  w.json().EndArray();
  w.raw_object("metadata", status.metadata);
  w.json().EndObject();
  return w.text();
}

namespace {

// An integer >= 0, or nullopt when absent or null.
std::optional<int64_t> read_count(const payload::Json& object, const char* key,
                                  const std::string& path) {
  if (payload::find(object, key) == nullptr) return std::nullopt;
  const int64_t value = payload::read_int(object, key, path, 0);
  if (value < 0) payload::fail(payload::member_path(path, key), "must be an integer >= 0");
  return value;
}

AppState read_state(const payload::Json& object, const std::string& path, AppState fallback) {
  const std::string name = payload::read_string(object, "state", path);
  if (name.empty()) return fallback;
  const std::optional<AppState> state = app_state_from_name(name);
  if (!state) {
    payload::fail(payload::member_path(path, "state"),
                  "expected one of UNSUBMITTED, SUBMITTED, PENDING, RUNNING, SUCCEEDED, FAILED, "
                  "CANCELLED, UNKNOWN, got \"" +
                      name + "\"");
  }
  return *state;
}

ReplicaStatus read_replica(const payload::Json& value, const std::string& path) {
  if (!value.IsObject()) payload::fail_type(path, "an object", value);
  ReplicaStatus replica;
  replica.id = read_count(value, "id", path).value_or(0);
  replica.state = read_state(value, path, AppState::kUnknown);
  replica.pid = read_count(value, "pid", path);
  if (payload::find(value, "exit_code") != nullptr) {
    replica.exit_code = payload::read_int(value, "exit_code", path, 0);
  }
  replica.hostname = payload::read_string(value, "hostname", path);
  replica.restarts = read_count(value, "restarts", path).value_or(0);
  replica.started_at = read_count(value, "started_at", path);
  replica.finished_at = read_count(value, "finished_at", path);
  replica.msg = payload::read_string(value, "msg", path);
  return replica;
}

}  // namespace

AppStatus read_status(std::string_view json) {
  const rapidjson::Document document = payload::parse_object(json, "sortie.status/1");
  payload::check_schema(document, "sortie.status/1");
  AppStatus status;
  status.app_id = payload::read_string(document, "app_id", "");
  if (status.app_id.empty()) payload::fail("app_id", "is required");
  if (payload::find(document, "state") == nullptr) payload::fail("state", "is required");
  status.state = read_state(document, "", AppState::kUnknown);
  status.num_restarts = read_count(document, "num_restarts", "").value_or(0);
  status.msg = payload::read_string(document, "msg", "");
  status.ui_url = payload::read_string(document, "ui_url", "");
  status.structured_error_msg = payload::read_string(document, "structured_error_msg", "");
  if (const payload::Json* roles = payload::read_array(document, "roles", "")) {
    for (const payload::Json& value : roles->GetArray()) {
      const std::string path = "roles[" + std::to_string(status.roles.size()) + "]";
      if (!value.IsObject()) payload::fail_type(path, "an object", value);
      RoleStatus& role = status.roles.emplace_back();
      role.role = payload::read_string(value, "role", path);
      if (const payload::Json* replicas = payload::read_array(value, "replicas", path)) {
        for (const payload::Json& replica : replicas->GetArray()) {
          role.replicas.push_back(read_replica(
              replica, path + ".replicas[" + std::to_string(role.replicas.size()) + "]"));
        }
      }
    }
  }
  if (const payload::Json* metadata = payload::read_object(document, "metadata", "")) {
    for (const auto& entry : metadata->GetObject()) {
      status.metadata.emplace_back(
          std::string(entry.name.GetString(), entry.name.GetStringLength()),
          payload::to_text(entry.value));
    }
  }
  return status;
}

std::string json_string(std::string_view text) {
  payload::PayloadWriter w;
  w.string(text);
  return w.text();
}

}  // namespace sortie
