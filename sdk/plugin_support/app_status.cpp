#include <sortie/app_status.hpp>

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
  w.key("metadata");
  w.json().StartObject();
  for (const auto& [key, json] : status.metadata) w.raw_member(key, json);
  w.json().EndObject();
  w.json().EndObject();
  return w.text();
}

std::string json_string(std::string_view text) {
  payload::PayloadWriter w;
  w.string(text);
  return w.text();
}

}  // namespace sortie
