// File: core/plugin_host/app_id_check.hpp
//
// What a scheduler's schedule() may return as an app id (docs/plugin-policy.md, PLG-19): it ends
// up in a handle (SCHEDULER://SESSION/APP_ID), in file names of the store and on terminals, so
// it must survive all three unchanged. Private to the plugin host.
#ifndef SORTIE_PLUGIN_HOST_APP_ID_CHECK_HPP
#define SORTIE_PLUGIN_HOST_APP_ID_CHECK_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace sortie::plugin_host::detail {

inline constexpr size_t kMaxAppIdBytes = 200;

// Throws Error(INTERNAL) naming `context` and the offending byte unless `app_id` is 1 to
// kMaxAppIdBytes printable ASCII characters with none of / \ " ' ` { } [ ] or a space.
void check_app_id(const std::string& context, std::string_view app_id);

}  // namespace sortie::plugin_host::detail

#endif  // SORTIE_PLUGIN_HOST_APP_ID_CHECK_HPP
