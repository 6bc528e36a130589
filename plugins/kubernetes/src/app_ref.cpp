#include "app_ref.hpp"

#include <sortie/plugin.hpp>
#include <vector>

#include "dns_names.hpp"

namespace sortie::kubernetes {

std::string AppRef::id() const {
  const std::string base = namespace_name + ":" + name;
  return gang == Gang::kNone ? base : std::string(gang_name(gang)) + ":" + base;
}

AppRef parse_app_ref(std::string_view app_id) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t colon = app_id.find(':', start);
    parts.emplace_back(app_id.substr(start, colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  AppRef ref;
  bool valid = parts.size() == 2 || parts.size() == 3;
  if (parts.size() == 3) {
    if (parts[0] == "volcano") {
      ref.gang = Gang::kVolcano;
    } else if (parts[0] == "jobset") {
      ref.gang = Gang::kJobSet;
    } else {
      valid = false;
    }
  }
  if (valid) {
    ref.namespace_name = parts[parts.size() - 2];
    ref.name = parts.back();
    valid = is_dns1123_label(ref.namespace_name) && is_dns1123_label(ref.name);
  }
  if (!valid) {
    throw Error::not_found("'" + std::string(app_id) +
                           "' is not a kubernetes app id (expected NAMESPACE:NAME, "
                           "volcano:NAMESPACE:NAME or jobset:NAMESPACE:NAME)");
  }
  return ref;
}

}  // namespace sortie::kubernetes
