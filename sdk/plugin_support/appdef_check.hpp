// The checks of an AppDef's values, shared by the reader (after it has read a part's types) and
// check_appdef (an app built in code), so both word each error alike. Each throws sortie::Error
// INVALID_ARGUMENT "<path>: <what is wrong>". Private to Sortie::plugin_support.
#ifndef SORTIE_PLUGIN_SUPPORT_APPDEF_CHECK_HPP
#define SORTIE_PLUGIN_SUPPORT_APPDEF_CHECK_HPP

#include <cstddef>
#include <sortie/appdef.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::payload {

// `text` in double quotes, as errors show a value that is text.
inline std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

void check_app_name(const std::string& name);
void check_role_count(size_t count);
// "" or an absolute path without a NUL.
void check_output_dir(const std::string& output_dir);
// `path` is "" for a resource read alone.
void check_resource(const Resource& resource, const std::string& path);
void check_mount(const Mount& mount, const std::string& path);
// Everything of one role but its name's uniqueness, resource and mounts included.
void check_role(const Role& role, const std::string& path);
// roles[index]'s name differs from those before it.
void check_unique_name(const std::vector<Role>& roles, size_t index, const std::string& path);

}  // namespace sortie::payload

#endif  // SORTIE_PLUGIN_SUPPORT_APPDEF_CHECK_HPP
