// Reads an AppDef from a parsed JSON object, for payloads that embed one (sortie.dryrun_input/1).
#ifndef SORTIE_PLUGIN_SUPPORT_APPDEF_JSON_HPP
#define SORTIE_PLUGIN_SUPPORT_APPDEF_JSON_HPP

#include <sortie/appdef.hpp>

#include "payload_reader.hpp"

namespace sortie::payload {

AppDef read_appdef(const Json& app);

}  // namespace sortie::payload

#endif  // SORTIE_PLUGIN_SUPPORT_APPDEF_JSON_HPP
