// File: sortie/model/model_json.hpp
//
// The model's JSON documents read with where they came from (docs/payloads.md P-1, P-3, P-8).
// The SDK reads and writes them (sortie/appdef.hpp, sortie/app_status.hpp); these readers throw
// its Error with `origin` (a file name or "plugin X") in front, e.g.
// "spec.json: roles[1].num_replicas: expected an integer, got \"two\"".
#ifndef SORTIE_MODEL_MODEL_JSON_HPP
#define SORTIE_MODEL_MODEL_JSON_HPP

#include <sortie/model/model.hpp>
#include <string>
#include <string_view>

namespace sortie::model {

AppDef appdef_from_json(std::string_view json, std::string_view origin);
Resource resource_from_json(std::string_view json, std::string_view origin);
AppStatus status_from_json(std::string_view json, std::string_view origin);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_MODEL_JSON_HPP
