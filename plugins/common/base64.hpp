// Standard base64 (RFC 4648) decoding for the first-party plugins: kubeconfig *-data fields and
// Secrets (kubernetes), the "auth" entries `docker login` writes (vertex).
#ifndef SORTIE_PLUGINS_COMMON_BASE64_HPP
#define SORTIE_PLUGINS_COMMON_BASE64_HPP

#include <optional>
#include <string>
#include <string_view>

namespace sortie::plugins_common {

struct Base64Reading {
  // Spaces, tabs and line breaks are skipped (kubeconfig data may be wrapped) instead of refused.
  bool skip_whitespace = false;
  // The first '=' ends the text and nothing after it is checked, as docker's "auth" is read;
  // otherwise at most two '=' may only end the text and no partial character may be left over.
  bool stop_at_padding = false;
};

// nullopt when text is not base64 under the given reading.
std::optional<std::string> base64_decode(std::string_view text, Base64Reading reading);

}  // namespace sortie::plugins_common

#endif
