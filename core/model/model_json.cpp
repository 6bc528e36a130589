#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>

namespace sortie::model {
namespace {

// Runs an SDK payload reader; its errors name the field, `origin` adds the document.
template <typename Read>
auto with_origin(std::string_view origin, const Read& read) {
  try {
    return read();
  } catch (const Error& e) {
    throw Error(e.status(), std::string(origin) + ": " + e.what());
  }
}

}  // namespace

AppDef appdef_from_json(std::string_view text, std::string_view origin) {
  return with_origin(origin, [&] { return read_appdef(text); });
}

Resource resource_from_json(std::string_view text, std::string_view origin) {
  return with_origin(origin, [&] { return read_resource(text); });
}

AppStatus status_from_json(std::string_view text, std::string_view origin) {
  return with_origin(origin, [&] { return read_status(text); });
}

}  // namespace sortie::model
