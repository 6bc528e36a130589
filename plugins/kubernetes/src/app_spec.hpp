// The parts of a sortie.appdef/1 the kubernetes scheduler reads, after refusing what it cannot
// honour with an error naming the role and field.
#ifndef SORTIE_KUBERNETES_APP_SPEC_HPP
#define SORTIE_KUBERNETES_APP_SPEC_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "json.hpp"

namespace sortie::kubernetes {

enum class RetryPolicy { kApplication, kRole, kReplica };

struct MountSpec {
  enum class Type { kBind, kVolume, kDevice };
  Type type = Type::kBind;
  std::string src;
  std::string dst;
  bool read_only = false;
};

struct RoleSpec {
  std::string name;
  std::string image;
  std::string entrypoint;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  int64_t num_replicas = 1;
  std::optional<int64_t> min_replicas;
  int64_t max_retries = 0;
  RetryPolicy retry_policy = RetryPolicy::kApplication;
  double cpu = -1;  // unset when < 0
  int64_t gpu = -1;
  int64_t mem_mb = -1;
  std::vector<std::pair<std::string, std::string>> capabilities;  // -> nodeSelector
  std::vector<std::pair<std::string, int64_t>> devices;           // -> extended resources
  std::vector<std::pair<std::string, int64_t>> ports;
  std::vector<MountSpec> mounts;
};

struct AppSpec {
  std::string name;
  std::vector<RoleSpec> roles;
};

const char* retry_policy_name(RetryPolicy policy);

// Reads the "app" member of a dryrun input. Throws INVALID_ARGUMENT naming role and field.
AppSpec read_app_spec(const Json& app);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_APP_SPEC_HPP
