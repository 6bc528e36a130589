#include "dns_names.hpp"

#include <cstdint>

namespace sortie::kubernetes {
namespace {

constexpr size_t kHashLength = 5;

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

std::string short_hash(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  static constexpr std::string_view kBase36 = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  for (size_t i = 0; i < kHashLength; ++i) {
    out += kBase36[hash % 36];
    hash /= 36;
  }
  return out;
}

// Maps text to allowed characters (runs of others become one separator) and trims separators at
// both ends, then shortens with a hash suffix when longer than max_length.
template <class Allowed>
std::string sanitize(std::string_view text, size_t max_length, bool lower, Allowed allowed) {
  std::string out;
  for (char c : text) {
    if (lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (allowed(c)) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  const auto trim = [&] {
    while (!out.empty() && !is_alnum(out.back())) out.pop_back();
    size_t start = 0;
    while (start < out.size() && !is_alnum(out[start])) ++start;
    out.erase(0, start);
  };
  trim();
  if (out.size() > max_length) {
    out.resize(max_length - kHashLength - 1);
    trim();
    out += (out.empty() ? "" : "-") + short_hash(text);
  }
  return out;
}

}  // namespace

bool is_dns1123_label(std::string_view name) {
  if (name.empty() || name.size() > kMaxLabelLength) return false;
  for (const char c : name) {
    if (!is_lower_alnum(c) && c != '-') return false;
  }
  return is_lower_alnum(name.front()) && is_lower_alnum(name.back());
}

bool is_dns1123_subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  for (;;) {
    const size_t dot = name.find('.', start);
    const std::string_view part = name.substr(start, dot - start);
    if (!is_dns1123_label(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_dns1035_label(std::string_view name) {
  return is_dns1123_label(name) && name.front() >= 'a' && name.front() <= 'z';
}

bool is_label_value(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > kMaxLabelLength) return false;
  for (const char c : value) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return is_alnum(value.front()) && is_alnum(value.back());
}

bool is_port_name(std::string_view name) {
  if (name.empty() || name.size() > 15 || name.front() == '-' || name.back() == '-' ||
      name.find("--") != std::string_view::npos) {
    return false;
  }
  bool has_letter = false;
  for (const char c : name) {
    if (!is_lower_alnum(c) && c != '-') return false;
    has_letter = has_letter || (c >= 'a' && c <= 'z');
  }
  return has_letter;
}

std::string dns_label(std::string_view text, size_t max_length) {
  std::string name = sanitize(text, max_length, true, is_lower_alnum);
  return name.empty() ? short_hash(text) : name;
}

std::string dns1035_label(std::string_view text, size_t max_length) {
  std::string name = dns_label(text, max_length);
  if (name.front() >= 'a' && name.front() <= 'z') return name;
  return dns_label("s-" + name, max_length);
}

std::string label_value(std::string_view text) {
  return sanitize(text, kMaxLabelLength, false,
                  [](char c) { return is_alnum(c) || c == '_' || c == '.'; });
}

}  // namespace sortie::kubernetes
