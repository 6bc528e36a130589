#include "appdef_check.hpp"

#include <rapidjson/document.h>

#include <cmath>
#include <limits>
#include <sortie/limits.hpp>

#include "payload_reader.hpp"
#include "payload_writer.hpp"

namespace sortie::payload {
namespace {

// Counts the host keeps as int (retries, GPUs, devices) stay below 2^31.
constexpr int64_t kMaxCount = std::numeric_limits<int32_t>::max();
// What a negative resource amount other than -1 hears.
constexpr const char* kNotAnAmount = "must be at least 0 (or -1: unset), got ";

bool is_absolute(const std::string& path) { return !path.empty() && path[0] == '/'; }

// A program's argv and environment are C strings: a NUL would silently end the text there.
void refuse_nul(const std::string& path, const std::string& text) {
  if (text.find('\0') != std::string::npos) {
    fail(path,
         "holds a NUL character, which a program's arguments and environment cannot carry "
         "(the text would end there); remove it");
  }
}

void check_range(const std::string& path, int64_t number, int64_t min, int64_t max) {
  if (number < min) {
    fail(path, "must be at least " + std::to_string(min) + ", got " + std::to_string(number));
  }
  if (number > max) {
    fail(path, "must be at most " + std::to_string(max) + ", got " + std::to_string(number));
  }
}

// A resource amount: -1 means unset.
void check_amount(const std::string& path, int64_t number, int64_t max) {
  if (number == -1) return;
  if (number < 0) fail(path, kNotAnAmount + std::to_string(number));
  check_range(path, number, 0, max);
}

void check_replicas(const Role& role, const std::string& path) {
  const std::string replicas_path = path + ".num_replicas";
  check_range(replicas_path, role.num_replicas, 1, kMaxCount);
  if (static_cast<size_t>(role.num_replicas) > limits::value(limits::kReplicasPerRole)) {
    fail(replicas_path,
         limits::exceeded(std::to_string(role.num_replicas), limits::kReplicasPerRole));
  }
  if (role.min_replicas && (*role.min_replicas < 1 || *role.min_replicas > role.num_replicas)) {
    fail(path + ".min_replicas", "must be between 1 and num_replicas (" +
                                     std::to_string(role.num_replicas) + "), got " +
                                     std::to_string(*role.min_replicas));
  }
}

// Role metadata values are JSON text: the reader keeps them so, code must write them so.
void check_metadata(const StringPairs& metadata, const std::string& path) {
  for (const auto& [key, json] : metadata) {
    rapidjson::Document value;
    value.Parse(json.data(), json.size());
    if (value.HasParseError()) {
      fail(path + ".metadata." + key, "must be JSON text, got " + quoted(json));
    }
  }
}

}  // namespace

void check_app_name(const std::string& name) {
  if (name.empty()) fail("name", "is required");
}

void check_output_dir(const std::string& output_dir) {
  refuse_nul("output_dir", output_dir);
  if (!output_dir.empty() && !is_absolute(output_dir)) {
    fail("output_dir", "must be an absolute path, got " + quoted(output_dir));
  }
}

void check_role_count(size_t count) {
  if (count == 0) fail("roles", "must hold at least one role");
}

void check_resource(const Resource& resource, const std::string& path) {
  if (!std::isfinite(resource.cpu)) {
    fail(member_path(path, "cpu"), "must be a finite number");
  }
  if (resource.cpu < 0 && resource.cpu != -1) {
    fail(member_path(path, "cpu"), kNotAnAmount + number_text(resource.cpu));
  }
  check_amount(member_path(path, "gpu"), resource.gpu, kMaxCount);
  check_amount(member_path(path, "memMB"), resource.mem_mb, std::numeric_limits<int64_t>::max());
  for (const auto& [name, count] : resource.devices) {
    check_range(member_path(path, "devices") + "." + name, count, 0, kMaxCount);
  }
}

void check_mount(const Mount& mount, const std::string& path) {
  if (mount.src.empty()) fail(path + ".src", "is required");
  if (mount.type != MountType::kVolume && !is_absolute(mount.src)) {
    fail(path + ".src", "must be an absolute host path, got " + quoted(mount.src));
  }
  if (mount.dst.empty()) fail(path + ".dst", "is required");
  if (!is_absolute(mount.dst)) {
    fail(path + ".dst", "must be an absolute path, got " + quoted(mount.dst));
  }
  if (mount.type == MountType::kDevice &&
      (mount.permissions.empty() ||
       mount.permissions.find_first_not_of("rwm") != std::string::npos)) {
    fail(path + ".permissions", "must use only r, w and m, got " + quoted(mount.permissions));
  }
}

void check_role(const Role& role, const std::string& path) {
  if (role.name.empty()) fail(path + ".name", "is required");
  if (role.entrypoint.empty() && role.image.empty()) {
    fail(path + ".entrypoint", "is required when the role has no image");
  }
  refuse_nul(path + ".entrypoint", role.entrypoint);
  for (size_t i = 0; i < role.args.size(); ++i) {
    refuse_nul(path + ".args[" + std::to_string(i) + "]", role.args[i]);
  }
  for (const auto& [name, value] : role.env) {
    refuse_nul(path + ".env", name);
    refuse_nul(path + ".env." + name, value);
  }
  check_replicas(role, path);
  check_range(path + ".max_retries", role.max_retries, 0, kMaxCount);
  check_resource(role.resource, path + ".resource");
  for (const auto& [name, port] : role.port_map) {
    if (port < 1 || port > 65535) {
      fail(path + ".port_map." + name,
           "must be a port number from 1 to 65535, got " + std::to_string(port));
    }
  }
  for (size_t i = 0; i < role.mounts.size(); ++i) {
    check_mount(role.mounts[i], path + ".mounts[" + std::to_string(i) + "]");
  }
  check_metadata(role.metadata, path);
}

void check_unique_name(const std::vector<Role>& roles, size_t index, const std::string& path) {
  for (size_t i = 0; i < index; ++i) {
    if (roles[i].name == roles[index].name) {
      fail(path + ".name", quoted(roles[index].name) + " is used twice; role names must be unique");
    }
  }
}

}  // namespace sortie::payload

namespace sortie {

void check_appdef(const AppDef& app) {
  payload::check_app_name(app.name);
  payload::check_output_dir(app.output_dir);
  payload::check_role_count(app.roles.size());
  for (size_t i = 0; i < app.roles.size(); ++i) {
    const std::string path = "roles[" + std::to_string(i) + "]";
    payload::check_role(app.roles[i], path);
    payload::check_unique_name(app.roles, i, path);
  }
}

}  // namespace sortie
