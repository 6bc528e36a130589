// The application a scheduler is asked to run, as sortie.appdef/1 describes it
// (docs/payloads.md P-1 to P-3), and its reader. Part of Sortie::plugin_support.
//
// The reader checks what every scheduler relies on (types, ranges, names, mount shapes) and
// throws sortie::Error INVALID_ARGUMENT naming the field path, e.g.
// `roles[1].retry_policy: expected "REPLICA", "APPLICATION" or "ROLE", got "HOST"`. What one
// scheduler cannot honour (mounts on a process scheduler, ...) is that scheduler's to refuse.
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

// A per-replica resource request; a negative number means unset.
struct Resource {
  double cpu = -1;
  int64_t gpu = -1;
  int64_t mem_mb = -1;       // "memMB"
  StringPairs capabilities;  // e.g. node labels
  CountPairs devices;        // device name -> count (>= 0)
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
  std::string base_image;
  std::string entrypoint;  // "" only with an image: run the image's own ENTRYPOINT
  std::vector<std::string> args;
  StringPairs env;
  int64_t num_replicas = 1;             // >= 1
  std::optional<int64_t> min_replicas;  // between 1 and num_replicas
  int64_t max_retries = 0;              // >= 0
  RetryPolicy retry_policy = RetryPolicy::kApplication;
  Resource resource;
  CountPairs port_map;  // ports from 1 to 65535
  std::vector<Mount> mounts;
  StringPairs metadata;  // key -> the value as JSON text (values may be any JSON)
};

struct AppDef {
  std::string name;
  StringPairs metadata;
  std::vector<Role> roles;  // at least one
};

// Reads a sortie.appdef/1 object (JSON text).
AppDef read_appdef(std::string_view json);

}  // namespace sortie

#endif  // SORTIE_APPDEF_HPP
