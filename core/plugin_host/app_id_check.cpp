#include "app_id_check.hpp"

#include <cstdio>
#include <sortie/model/error.hpp>
#include <string_view>

namespace sortie::plugin_host::detail {
namespace {

bool is_allowed(unsigned char c) {
  constexpr std::string_view kRefused = "/\\\"'`{}[]";
  return c > 0x20 && c < 0x7f && kRefused.find(static_cast<char>(c)) == std::string_view::npos;
}

[[noreturn]] void refuse(const std::string& context, const std::string& why) {
  throw Error::internal(context + ": schedule returned an app id that " + why +
                        "; app ids are 1 to " + std::to_string(kMaxAppIdBytes) +
                        " printable ASCII characters without spaces, quotes, brackets, braces, "
                        "'/' or '\\' (docs/plugin-policy.md, PLG-19); this is a bug in the plugin");
}

}  // namespace

void check_app_id(const std::string& context, std::string_view app_id) {
  if (app_id.empty()) refuse(context, "is empty");
  if (app_id.size() > kMaxAppIdBytes) {
    refuse(context, "is " + std::to_string(app_id.size()) + " bytes long");
  }
  for (size_t i = 0; i < app_id.size(); ++i) {
    const auto c = static_cast<unsigned char>(app_id[i]);
    if (is_allowed(c)) continue;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", c);
    refuse(context, "holds the byte " + std::string(byte) + " at offset " + std::to_string(i));
  }
}

}  // namespace sortie::plugin_host::detail
