// Refusing the AppDef fields a scheduler does not honour, so that none is ignored silently
// (sdk/README.md, "Refuse or honour"). Part of Sortie::plugin_support.
#ifndef SORTIE_FIELD_SUPPORT_HPP
#define SORTIE_FIELD_SUPPORT_HPP

#include <initializer_list>
#include <string_view>

#include "appdef.hpp"

namespace sortie {

// Throws sortie::Error INVALID_ARGUMENT naming the first field the app sets that is not in
// `honoured` and naming `scheduler`, e.g. "roles[0].mounts is not supported by minimal". The
// fields, as docs/payloads.md names them: "roles" (more than one), and per role "image",
// "base_image", "args", "env", "min_replicas", "num_replicas" (more than one), "max_retries",
// "resource" (any member set), "port_map", "mounts", "metadata". `name` and `entrypoint` are
// always honoured; `retry_policy` only matters with max_retries.
void refuse_unsupported_fields(const AppDef& app, std::initializer_list<std::string_view> honoured,
                               std::string_view scheduler);

}  // namespace sortie

#endif  // SORTIE_FIELD_SUPPORT_HPP
