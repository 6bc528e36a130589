// File: core/model/appdef_from_sdk.hpp (private)
//
// Core's model of an app from the SDK's. The SDK's reader (sortie/appdef.hpp) is the one that
// reads and checks an AppDef, for JSON payloads, components and YAML specs alike; this only
// moves its checked result into core's types.
#ifndef SORTIE_CORE_SRC_APPDEF_FROM_SDK_HPP
#define SORTIE_CORE_SRC_APPDEF_FROM_SDK_HPP

#include <sortie/appdef.hpp>
#include <sortie/core/model.hpp>

namespace sortie::core {

AppDef appdef_from_sdk(const ::sortie::AppDef& app);
Resource resource_from_sdk(const ::sortie::Resource& resource);

}  // namespace sortie::core

#endif  // SORTIE_CORE_SRC_APPDEF_FROM_SDK_HPP
