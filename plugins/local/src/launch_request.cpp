#include "launch_request.hpp"

#include <sortie/plugin.hpp>

namespace sortie::local {

std::string replica_dir(std::string_view app_dir, std::string_view role, uint32_t replica_id) {
  std::string dir(app_dir);
  dir.append("/").append(role).append("/").append(std::to_string(replica_id));
  return dir;
}

std::string metrics_file_path(std::string_view app_dir, std::string_view role,
                              uint32_t replica_id) {
  std::string path(app_dir);
  path.append("/").append(role).append(".").append(std::to_string(replica_id));
  return path.append(".metrics.jsonl");
}

void write_launch_request(plugins_common::JsonWriter& writer, const LaunchRequest& request) {
  writer.StartObject();
  writer.Key("app_id");
  plugins_common::write_string(writer, request.app_id);
  writer.Key("app_name");
  plugins_common::write_string(writer, request.app_name);
  writer.Key("session");
  plugins_common::write_string(writer, request.session);
  writer.Key("app_dir");
  plugins_common::write_string(writer, request.app_dir);
  writer.Key("cancel_grace_period");
  writer.Double(request.cancel_grace_period_s);
  writer.Key("inherit_environment");
  writer.Bool(request.inherit_environment);
  writer.Key("read_only_dirs");
  writer.StartArray();
  for (const std::string& dir : request.read_only_dirs) plugins_common::write_string(writer, dir);
  writer.EndArray();
  writer.Key("roles");
  writer.StartArray();
  for (const RoleLaunch& role : request.roles) {
    writer.StartObject();
    writer.Key("name");
    plugins_common::write_string(writer, role.name);
    writer.Key("max_retries");
    writer.Int64(role.max_retries);
    writer.Key("retry_policy");
    plugins_common::write_string(writer, retry_policy_name(role.retry_policy));
    writer.Key("replicas");
    writer.StartArray();
    for (const ReplicaLaunch& replica : role.replicas) {
      writer.StartObject();
      writer.Key("id");
      writer.Uint(replica.id);
      writer.Key("argv");
      writer.StartArray();
      for (const std::string& arg : replica.argv) plugins_common::write_string(writer, arg);
      writer.EndArray();
      writer.Key("env");
      writer.StartObject();
      for (const auto& [name, value] : replica.env) {
        plugins_common::write_string(writer, name);
        plugins_common::write_string(writer, value);
      }
      writer.EndObject();
      writer.Key("cwd");
      plugins_common::write_string(writer, replica.cwd);
      // Informational: where the supervisor writes this replica's output.
      const std::string dir = replica_dir(request.app_dir, role.name, replica.id);
      writer.Key("logs");
      writer.StartObject();
      for (const char* stream : {"stdout", "stderr", "combined"}) {
        writer.Key(stream);
        plugins_common::write_string(writer, dir + "/" + stream + ".log");
      }
      writer.EndObject();
      writer.EndObject();
    }
    writer.EndArray();
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
}

LaunchRequest read_launch_request(const rapidjson::Value& value, std::string_view what) {
  if (!value.IsObject()) {
    throw Error::invalid_argument(std::string(what) + ": the request must be an object");
  }
  LaunchRequest request;
  request.app_id = plugins_common::string_member(value, "app_id", what);
  request.app_name = plugins_common::string_member(value, "app_name", what);
  request.session = plugins_common::string_member(value, "session", what);
  request.app_dir = plugins_common::string_member(value, "app_dir", what);
  request.cancel_grace_period_s =
      plugins_common::number_member(value, "cancel_grace_period", what, 10.0);
  request.inherit_environment =
      plugins_common::bool_member(value, "inherit_environment", what, true);
  if (const rapidjson::Value* dirs = plugins_common::array_member(value, "read_only_dirs", what)) {
    for (const rapidjson::Value& dir : dirs->GetArray()) {
      if (!dir.IsString() || dir.GetStringLength() == 0 || dir.GetString()[0] != '/') {
        throw Error::invalid_argument(std::string(what) +
                                      ": member 'read_only_dirs' must list absolute paths");
      }
      request.read_only_dirs.emplace_back(dir.GetString(), dir.GetStringLength());
    }
  }
  if (request.app_id.empty() || request.app_dir.empty()) {
    throw Error::invalid_argument(std::string(what) +
                                  ": members 'app_id' and 'app_dir' are required");
  }
  const rapidjson::Value* roles = plugins_common::array_member(value, "roles", what);
  if (roles == nullptr || roles->Empty()) {
    throw Error::invalid_argument(std::string(what) + ": member 'roles' must list roles");
  }
  for (const rapidjson::Value& role_value : roles->GetArray()) {
    RoleLaunch role;
    role.name = plugins_common::string_member(role_value, "name", what);
    const std::string role_what = std::string(what) + " role '" + role.name + "'";
    role.max_retries = plugins_common::int_member(role_value, "max_retries", role_what, 0);
    const std::string policy_name =
        plugins_common::string_member(role_value, "retry_policy", role_what, "APPLICATION");
    const std::optional<RetryPolicy> policy = retry_policy_from_name(policy_name);
    if (!policy) {
      throw Error::invalid_argument(role_what + ": unknown retry_policy '" + policy_name + "'");
    }
    role.retry_policy = *policy;
    const rapidjson::Value* replicas =
        plugins_common::array_member(role_value, "replicas", role_what);
    if (replicas == nullptr || replicas->Empty()) {
      throw Error::invalid_argument(role_what + ": member 'replicas' must list replicas");
    }
    for (const rapidjson::Value& replica_value : replicas->GetArray()) {
      ReplicaLaunch replica;
      replica.id =
          static_cast<uint32_t>(plugins_common::int_member(replica_value, "id", role_what, 0));
      const rapidjson::Value* argv = plugins_common::array_member(replica_value, "argv", role_what);
      if (argv == nullptr || argv->Empty()) {
        throw Error::invalid_argument(role_what + ": member 'argv' must not be empty");
      }
      for (const rapidjson::Value& arg : argv->GetArray()) {
        if (!arg.IsString()) {
          throw Error::invalid_argument(role_what + ": argv entries must be strings");
        }
        replica.argv.emplace_back(arg.GetString(), arg.GetStringLength());
      }
      if (const rapidjson::Value* env =
              plugins_common::object_member(replica_value, "env", role_what)) {
        for (const auto& entry : env->GetObject()) {
          if (!entry.value.IsString()) {
            throw Error::invalid_argument(role_what + ": env values must be strings");
          }
          replica.env.emplace_back(
              std::string(entry.name.GetString(), entry.name.GetStringLength()),
              std::string(entry.value.GetString(), entry.value.GetStringLength()));
        }
      }
      replica.cwd = plugins_common::string_member(replica_value, "cwd", role_what);
      role.replicas.push_back(std::move(replica));
    }
    request.roles.push_back(std::move(role));
  }
  return request;
}

}  // namespace sortie::local
