// The application a scheduler is asked to run, as sortie.appdef/1 describes it
// (docs/payloads.md P-1 to P-3), with its reader, writer and check. Part of
// Sortie::plugin_support. It is the one model of an app: the host builds, checks and sends this
// AppDef, so a new field is added here alone.
//
// The reader checks what every scheduler relies on (types, ranges, names, mount shapes) and
// throws sortie::Error INVALID_ARGUMENT naming the field path, e.g.
// `roles[1].retry_policy: expected "REPLICA", "APPLICATION" or "ROLE", got "HOST"`. It is the one
// reader of an AppDef: the host reads JSON payloads, components and YAML app specs through it,
// and check_appdef() runs the same checks on an app built in code, so each field is checked,
// and worded, once. What one scheduler cannot honour (mounts on a process scheduler, ...) is
// that scheduler's to refuse.
#ifndef SORTIE_APPDEF_HPP
#define SORTIE_APPDEF_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app_state.hpp"

namespace sortie {

// Named string or number pairs in payload order.
using StringPairs = std::vector<std::pair<std::string, std::string>>;
using CountPairs = std::vector<std::pair<std::string, int64_t>>;

// The value named `key`, or nullptr.
const std::string* find_value(const StringPairs& pairs, std::string_view key);
// Sets the value named `key`, replacing it where present, else adding it at the end.
void set_value(StringPairs& pairs, std::string_view key, std::string value);

// A per-replica resource request; a negative number means unset.
struct Resource {
  double cpu = -1;
  int64_t gpu = -1;          // up to 2^31 - 1
  int64_t mem_mb = -1;       // "memMB"
  StringPairs capabilities;  // e.g. node labels
  CountPairs devices;        // device name -> count (0 to 2^31 - 1)
};

enum class MountType { kBind, kVolume, kDevice };

struct Mount {
  MountType type = MountType::kBind;
  std::string src;  // non-empty; absolute for bind and device mounts
  std::string dst;  // absolute; a device mount's defaults to src
  bool read_only = false;
  std::string permissions = "rwm";  // device mounts: a non-empty mix of r, w and m
};

std::string_view mount_type_name(MountType type) noexcept;

struct Role {
  std::string name;  // non-empty, unique in the app
  std::string image;
  std::string base_image;  // "" (written as null): none
  std::string entrypoint;  // "" only with an image: run the image's own ENTRYPOINT
  std::vector<std::string> args;
  StringPairs env;
  int64_t num_replicas = 1;             // 1 to the REPLICAS_PER_ROLE limit (docs/limits.md)
  std::optional<int64_t> min_replicas;  // between 1 and num_replicas
  int64_t max_retries = 0;              // 0 to 2^31 - 1
  RetryPolicy retry_policy = RetryPolicy::kApplication;
  Resource resource;
  CountPairs port_map;  // ports from 1 to 65535
  std::vector<Mount> mounts;
  StringPairs metadata;  // key -> the value as JSON text (values may be any JSON)
};

struct AppDef {
  std::string name;  // non-empty
  StringPairs metadata;
  // The app's own directory to write to (P-1.1), chosen by the host: "" for none, else an
  // absolute path. Schedulers give it to every replica as $SORTIE_OUTPUT_DIR and ${output_dir},
  // as the replica sees it (local_docker bind-mounts it), and create it, mode 0700.
  std::string output_dir;
  std::vector<Role> roles;  // at least one
};

// How a document writes its scalars. JSON payloads are typed (kTyped). kText is for documents
// whose scalars are all text, such as YAML app specs the host turns into JSON: a member that
// must be a number or a boolean may then also be a string holding one, as YAML 1.2's core
// schema reads it ("2", "-0.5", "1e3", "true", "False"); "0x10" or "yes" stay strings.
enum class ScalarForm { kTyped, kText };

// Reads a sortie.appdef/1 object (JSON text).
AppDef read_appdef(std::string_view json, ScalarForm scalars = ScalarForm::kTyped);

// Reads a sortie.resource/1 object (P-3), e.g. a named resource; errors name its members alone
// ("gpu: expected an integer, got 1.5").
Resource read_resource(std::string_view json, ScalarForm scalars = ScalarForm::kTyped);

// The members the reader knows of an app, a role, a resource and a mount, "schema" aside, in
// payload order: for the host's readers of other forms (YAML specs) that refuse unknown keys.
// The app's output_dir is the host's to choose, so it is not among them.
const std::vector<std::string>& appdef_members();
const std::vector<std::string>& role_members();
const std::vector<std::string>& resource_members();
const std::vector<std::string>& mount_members();

// Checks an app built in code as read_appdef checks a payload, with the same functions and
// words ("roles[1].num_replicas: must be at least 1, got 0"); role metadata values must be JSON
// text.
void check_appdef(const AppDef& app);

// The JSON text of an app (sortie.appdef/1), a role alone (sortie.role/1, as image providers
// get it) and a resource (sortie.resource/1). Maps (env, metadata, capabilities, devices,
// port_map) are written sorted by name, so the text does not depend on the order code added
// them; role metadata keeps its order. An empty base_image is written as null, a whole cpu as an
// integer.
std::string write_appdef(const AppDef& app);
std::string write_role(const Role& role);
std::string write_resource(const Resource& resource);

// The environment variable and the macro that name an app's output directory (P-1.1).
inline constexpr const char* kOutputDirEnv = "SORTIE_OUTPUT_DIR";
inline constexpr const char* kOutputDirMacro = "output_dir";

}  // namespace sortie

#endif  // SORTIE_APPDEF_HPP
