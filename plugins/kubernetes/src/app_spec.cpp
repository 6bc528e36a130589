#include "app_spec.hpp"

#include <sortie/plugin.hpp>

#include "dns_names.hpp"

namespace sortie::kubernetes {
namespace {

[[noreturn]] void refuse(const std::string& what, const std::string& message) {
  throw Error::invalid_argument(what + ": " + message);
}

void refuse_unsupported(const Role& role) {
  const std::string what = "role '" + role.name + "'";
  if (role.image.empty()) {
    refuse(what,
           "field 'image' must name a container image (e.g. ghcr.io/org/trainer:1.0); the "
           "kubernetes scheduler runs containers");
  }
  if (!role.base_image.empty()) {
    refuse(what,
           "field 'base_image' is not supported by the kubernetes scheduler (images are "
           "used as they are); remove it");
  }
  for (const auto& [key, value] : role.resource.capabilities) {
    if (!is_label_value(value)) {
      refuse(what + " resource", "capability '" + key + "' = '" + value +
                                     "' cannot be a node selector value (a label value: at most "
                                     "63 of A-Z, a-z, 0-9, '-', '_', '.')");
    }
  }
  for (const auto& [name, port] : role.port_map) {
    if (!is_port_name(name)) {
      refuse(what, "port_map name '" + name +
                       "' is not a valid Kubernetes port name (at most 15 of a-z, 0-9 and '-', "
                       "with a letter); rename it, e.g. 'tb'");
    }
  }
  for (const auto& [key, value] : role.metadata) {
    // The host marks images its packagers built into the local Docker Engine (payloads.md
    // P-1): the cluster cannot pull a local tag.
    if (key == "sortie.local_image" && value == "true") {
      refuse(what,
             "image '" + role.image +
                 "' was built on this machine and the cluster cannot pull it; name a "
                 "registry the cluster pulls from, once, as the kubernetes run option "
                 "image_repo (e.g. image_repo = 127.0.0.1:5000/team in .sortieconfig "
                 "[kubernetes], or -cfg image_repo=...) and sortie pushes it there, or "
                 "package a pushed image as xm.Container(image_path='REGISTRY/REPO/NAME:TAG')");
    }
    if (key.rfind("kubernetes.", 0) == 0) {
      refuse(what, "metadata key '" + key +
                       "' is not an option the kubernetes scheduler knows (it reads none from "
                       "metadata; see `sortie runopts kubernetes`); remove it");
    }
  }
}

}  // namespace

void refuse_unsupported(const AppDef& app) {
  for (const Role& role : app.roles) refuse_unsupported(role);
}

}  // namespace sortie::kubernetes
