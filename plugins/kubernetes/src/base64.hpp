// Standard base64 (RFC 4648), as kubeconfig *-data fields and Secrets carry it.
#ifndef SORTIE_KUBERNETES_BASE64_HPP
#define SORTIE_KUBERNETES_BASE64_HPP

#include <optional>
#include <string>
#include <string_view>

namespace sortie::kubernetes {

// nullopt when text is not base64 (whitespace and line breaks are skipped).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_BASE64_HPP
