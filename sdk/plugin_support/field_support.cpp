#include <algorithm>
#include <sortie/error.hpp>
#include <sortie/field_support.hpp>
#include <string>

namespace sortie {

void refuse_unsupported_fields(const AppDef& app, std::initializer_list<std::string_view> honoured,
                               std::string_view scheduler) {
  const auto refuse_unless_honoured = [&](bool set, std::string_view field,
                                          const std::string& path) {
    if (set && std::find(honoured.begin(), honoured.end(), field) == honoured.end()) {
      throw Error::invalid_argument(path + " is not supported by " + std::string(scheduler) +
                                    "; remove it or use a scheduler that honours it");
    }
  };
  refuse_unless_honoured(app.roles.size() > 1, "roles", "roles (more than one)");
  for (size_t i = 0; i < app.roles.size(); ++i) {
    const Role& role = app.roles[i];
    const std::string at = "roles[" + std::to_string(i) + "].";
    const Resource& resource = role.resource;
    refuse_unless_honoured(!role.image.empty(), "image", at + "image");
    refuse_unless_honoured(!role.base_image.empty(), "base_image", at + "base_image");
    refuse_unless_honoured(!role.args.empty(), "args", at + "args");
    refuse_unless_honoured(!role.env.empty(), "env", at + "env");
    refuse_unless_honoured(role.min_replicas.has_value(), "min_replicas", at + "min_replicas");
    refuse_unless_honoured(role.num_replicas > 1, "num_replicas", at + "num_replicas");
    refuse_unless_honoured(role.max_retries > 0, "max_retries", at + "max_retries");
    refuse_unless_honoured(resource.cpu >= 0 || resource.gpu >= 0 || resource.mem_mb >= 0 ||
                               !resource.capabilities.empty() || !resource.devices.empty(),
                           "resource", at + "resource");
    refuse_unless_honoured(!role.port_map.empty(), "port_map", at + "port_map");
    refuse_unless_honoured(!role.mounts.empty(), "mounts", at + "mounts");
    refuse_unless_honoured(!role.metadata.empty(), "metadata", at + "metadata");
  }
}

}  // namespace sortie
