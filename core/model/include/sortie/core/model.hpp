// File: sortie/core/model.hpp
//
// The application model, after TorchX's specs: an AppDef is a set of Roles, each replicated
// num_replicas times, with a Resource request per replica. Statuses mirror TorchX's AppStatus.
// JSON and YAML forms: model_json.hpp and spec_file.hpp; wire schemas: docs/payloads.md.
#ifndef SORTIE_CORE_MODEL_HPP
#define SORTIE_CORE_MODEL_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <sortie/app_state.hpp>
#include <sortie/app_status.hpp>
#include <sortie/appdef.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::core {

struct Resource {
  double cpu = -1;  // -1 = unset
  int gpu = -1;
  int64_t mem_mb = -1;
  std::map<std::string, std::string> capabilities;
  std::map<std::string, int> devices;
  bool operator==(const Resource&) const = default;
};

// State and retry-policy names are the SDK's, shared with every plugin.
using ::sortie::AppState;
using ::sortie::is_terminal;
using ::sortie::RetryPolicy;

// Mount types are the SDK's (sortie/appdef.hpp), as the payloads name them.
using ::sortie::MountType;

struct Mount {
  MountType type = MountType::kBind;
  std::string src;
  std::string dst;
  bool read_only = false;           // bind, volume
  std::string permissions = "rwm";  // device
  bool operator==(const Mount&) const = default;
};

struct Role {
  std::string name;
  std::string image;
  std::optional<std::string> base_image;
  std::string entrypoint;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  int num_replicas = 1;
  std::optional<int> min_replicas;
  int max_retries = 0;
  RetryPolicy retry_policy = RetryPolicy::kApplication;
  Resource resource;
  std::map<std::string, int> port_map;
  std::vector<Mount> mounts;
  std::string metadata_json = "{}";  // a JSON object, kept as text (values may be any JSON)
};

struct AppDef {
  std::string name;
  std::vector<Role> roles;
  std::map<std::string, std::string> metadata;
};

// Statuses are the SDK's sortie.status/1 model (sortie/app_status.hpp), read and written by its
// payload code: the host and every plugin share one AppStatus.
using ::sortie::AppStatus;
using ::sortie::ReplicaStatus;
using ::sortie::RoleStatus;

const char* to_string(AppState state) noexcept;
std::optional<AppState> app_state_from_string(std::string_view name) noexcept;
const char* to_string(RetryPolicy policy) noexcept;
std::optional<RetryPolicy> retry_policy_from_string(std::string_view name) noexcept;
const char* to_string(MountType type) noexcept;

// Checks an app built in code as its JSON form is checked: through the SDK's one AppDef reader
// (sortie/appdef.hpp; unique non-empty role names, entrypoint or image, replica and retry ranges,
// resources, ports, mounts). Throws Error "app 'NAME': roles[1].num_replicas: ...".
void validate(const AppDef& app);

// "{name}-{random}": lower-case, DNS-1123 safe, at most 63 characters (names are truncated).
std::string make_app_id(std::string_view app_name);

// A parsed handle "SCHEDULER://SESSION/APP_ID" (session may be empty: "s:///id").
struct AppHandle {
  std::string scheduler;
  std::string session;
  std::string app_id;
  std::string str() const;
};
// Throws Error with a message showing the expected form when text is not a handle.
AppHandle parse_app_handle(std::string_view text);

}  // namespace sortie::core

#endif  // SORTIE_CORE_MODEL_HPP
