// App ids of the kubernetes scheduler. An id says everything describe/cancel/log need to find the
// app's objects (rule ABI-8): "NAMESPACE:NAME" for Jobs, "volcano:NAMESPACE:NAME" and
// "jobset:NAMESPACE:NAME" for the gang-scheduled kinds. NAME is the objects' sortie.dev/app label.
#ifndef SORTIE_KUBERNETES_APP_REF_HPP
#define SORTIE_KUBERNETES_APP_REF_HPP

#include <string>
#include <string_view>

#include "run_options.hpp"

namespace sortie::kubernetes {

struct AppRef {
  Gang gang = Gang::kNone;
  std::string namespace_name;
  std::string name;

  std::string id() const;
};

// Throws NOT_FOUND for text that is not an id this scheduler writes.
AppRef parse_app_ref(std::string_view app_id);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_APP_REF_HPP
