// File: sortie/model/spec_file.hpp
//
// App specs written by people, in YAML or JSON (JSON is read as YAML, so both report lines).
// Fields are checked by the SDK's one AppDef reader (sortie/appdef.hpp), so errors read as for a
// JSON AppDef with where the field is written in front:
// "FILE:LINE:COL: roles[0].args: expected an array, got \"echo hi\"".
#ifndef SORTIE_MODEL_SPEC_FILE_HPP
#define SORTIE_MODEL_SPEC_FILE_HPP

#include <functional>
#include <optional>
#include <sortie/model/model.hpp>
#include <string>
#include <vector>

namespace sortie::model {

// Resolves a named resource ("gpu.small") to a Resource, or nullopt when unknown.
using NamedResourceLookup = std::function<std::optional<Resource>(const std::string& name)>;

// Reads an AppDef from a file. A role's `resource` may be a mapping or a named-resource string
// (resolved through `lookup`; an unknown name is an error listing the close ones among
// `resource_names`). Unknown keys are errors (a typo must not be silently dropped).
AppDef load_app_spec(const std::string& path, const NamedResourceLookup& lookup,
                     const std::vector<std::string>& resource_names = {});

// The same from text; `origin` names it in errors.
AppDef parse_app_spec(const std::string& text, const std::string& origin,
                      const NamedResourceLookup& lookup,
                      const std::vector<std::string>& resource_names = {});

}  // namespace sortie::model

#endif  // SORTIE_MODEL_SPEC_FILE_HPP
