// Kubernetes naming rules: object names, label values and port names. Generated names are made
// valid and kept within a length budget, so no manifest is refused by the API server for its
// names (TorchX #232: pod names over 63 characters).
#ifndef SORTIE_KUBERNETES_DNS_NAMES_HPP
#define SORTIE_KUBERNETES_DNS_NAMES_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace sortie::kubernetes {

constexpr size_t kMaxLabelLength = 63;

// RFC 1123 label: at most 63 of [a-z0-9-], starting and ending with a letter or digit.
bool is_dns1123_label(std::string_view name);
// RFC 1123 subdomain (most object names): at most 253 characters, '.'-separated labels.
bool is_dns1123_subdomain(std::string_view name);
// RFC 1035 label (Service names): a DNS-1123 label that starts with a letter.
bool is_dns1035_label(std::string_view name);
// A label value: at most 63 of [A-Za-z0-9-_.], starting and ending with a letter or digit, or "".
bool is_label_value(std::string_view value);
// A container port name (IANA_SVC_NAME): at most 15 of [a-z0-9-], with a letter, no "--", no
// leading or trailing '-'.
bool is_port_name(std::string_view name);

// A DNS-1123 label made from text: lower-cased, other characters as '-', at most max_length
// characters. A name that had to be shortened ends with a hash of the whole text, so two long
// names that share a prefix stay distinct.
std::string dns_label(std::string_view text, size_t max_length = kMaxLabelLength);
// Like dns_label, starting with a letter.
std::string dns1035_label(std::string_view text, size_t max_length = kMaxLabelLength);
// A valid label value made from text (same shortening rule).
std::string label_value(std::string_view text);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_DNS_NAMES_HPP
