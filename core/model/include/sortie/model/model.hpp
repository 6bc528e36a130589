// File: sortie/model/model.hpp
//
// The host's side of the application model, after TorchX's specs: an AppDef (the SDK's,
// sortie/appdef.hpp) is a set of Roles, each replicated num_replicas times, with a Resource
// request per replica. Statuses mirror TorchX's AppStatus. YAML form: spec_file.hpp; wire
// schemas: docs/payloads.md.
#ifndef SORTIE_MODEL_MODEL_HPP
#define SORTIE_MODEL_MODEL_HPP

#include <cstdint>
#include <optional>
#include <sortie/app_state.hpp>
#include <sortie/app_status.hpp>
#include <sortie/appdef.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::model {

// The app model is the SDK's (sortie/appdef.hpp): ::sortie::AppDef, Role, Resource and Mount,
// read, written and checked there. State, retry-policy and mount-type names are the SDK's too,
// shared with every plugin.
using ::sortie::AppState;
using ::sortie::is_terminal;
using ::sortie::MountType;
using ::sortie::RetryPolicy;

// Statuses are the SDK's sortie.status/1 model (sortie/app_status.hpp), read and written by its
// payload code: the host and every plugin share one AppStatus.
using ::sortie::AppStatus;
using ::sortie::ReplicaStatus;
using ::sortie::RoleStatus;

// app_state_name as a C string, for printf and fmt.
const char* to_string(AppState state) noexcept;

// Checks an app built in code as its JSON form is checked, with the SDK's check_appdef
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

}  // namespace sortie::model

#endif  // SORTIE_MODEL_MODEL_HPP
