// File: core/plugin_host/plugin_isolation.cpp
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sortie/model/error.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <sortie/registry/install_location.hpp>
#include <string>

namespace sortie::plugin_host {

std::string default_helper_path() {
  // Installed and staged trees alike keep the helper at this place in the prefix of the
  // `sortie` executable or of libsortie_launch.so, whichever holds this code.
  return (registry::install_prefix_of(registry::own_module_file()) / SORTIE_PLUGIN_HELPER_DIR /
          "sortie-plugin-host")
      .lexically_normal()
      .string();
}

std::chrono::milliseconds parse_timeout_seconds(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(seconds) ||
      seconds <= 0 || seconds > 1e6) {
    throw Error::invalid_argument(what + ": '" + text +
                                  "' is not a number of seconds; give a positive "
                                  "number such as 30 or 0.5");
  }
  return std::chrono::milliseconds(std::max<int64_t>(1, std::llround(seconds * 1000)));
}

IsolationOptions isolation_options_from_env(IsolationOptions base) {
  if (const char* isolate = std::getenv("SORTIE_ISOLATE_PLUGINS"); isolate != nullptr) {
    const std::string value = isolate;
    if (value == "1" || value == "true") {
      base.isolate_all = true;
    } else if (value == "0" || value == "false" || value.empty()) {
      base.isolate_all = false;
    } else {
      throw Error::invalid_argument("SORTIE_ISOLATE_PLUGINS: '" + value +
                                    "' is neither 1/true nor 0/false");
    }
  }
  if (const char* timeout = std::getenv("SORTIE_PLUGIN_TIMEOUT"); timeout != nullptr) {
    base.call_timeout = parse_timeout_seconds(timeout, "SORTIE_PLUGIN_TIMEOUT");
  }
  return base;
}

}  // namespace sortie::plugin_host
