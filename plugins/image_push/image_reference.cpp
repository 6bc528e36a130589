#include "image_reference.hpp"

#include <algorithm>
#include <sortie/plugin.hpp>

namespace sortie::image_push {
namespace {

// The grammar of github.com/distribution/reference, which the Engine and registries apply.
constexpr size_t kMaxNameLength = 255;
constexpr size_t kMaxTagLength = 128;

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]+ separated by '.', '_', '__' or any run of '-'.
bool is_path_component(std::string_view text) {
  if (text.empty() || !is_lower_alnum(text.front()) || !is_lower_alnum(text.back())) return false;
  size_t i = 0;
  while (i < text.size()) {
    if (is_lower_alnum(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !is_lower_alnum(text[end])) ++end;
    const std::string_view separator = text.substr(i, end - i);
    const bool dashes = separator.find_first_not_of('-') == std::string_view::npos;
    if (!(separator == "." || separator == "_" || separator == "__" || dashes)) return false;
    i = end;
  }
  return true;
}

// host[:port], host being dot-separated labels of letters, digits and inner '-'.
bool is_registry(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view host = text.substr(0, colon);
  if (colon != std::string_view::npos) {
    const std::string_view port = text.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
  }
  size_t start = 0;
  while (start <= host.size()) {
    const size_t dot = std::min(host.find('.', start), host.size());
    const std::string_view label = host.substr(start, dot - start);
    if (label.empty() || !is_alnum(label.front()) || !is_alnum(label.back())) return false;
    for (const char c : label) {
      if (!is_alnum(c) && c != '-') return false;
    }
    start = dot + 1;
  }
  return true;
}

bool is_tag(std::string_view text) {
  if (text.empty() || text.size() > kMaxTagLength || text.front() == '.' || text.front() == '-') {
    return false;
  }
  for (const char c : text) {
    if (!is_alnum(c) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

}  // namespace

ImageReference parse_push_target(std::string_view text, const std::string& what) {
  const std::string quoted = "'" + std::string(text) + "'";
  const auto refuse = [&](const std::string& why) {
    throw Error::invalid_argument(
        what + " " + quoted + " is not an image tag to push to: " + why +
        " (expected [REGISTRY/]PATH[:TAG], e.g. us-docker.pkg.dev/my-project/repo/"
        "trainer:v1)");
  };
  if (text.empty()) refuse("it is empty");
  if (text.find('@') != std::string_view::npos) {
    refuse("it names a digest; a push creates a tag, so give REPOSITORY:TAG");
  }
  ImageReference reference;
  const size_t last_slash = text.rfind('/');
  const size_t tag_colon = text.rfind(':');
  std::string_view name = text;
  if (tag_colon != std::string_view::npos &&
      (last_slash == std::string_view::npos || tag_colon > last_slash)) {
    name = text.substr(0, tag_colon);
    reference.tag = std::string(text.substr(tag_colon + 1));
    if (!is_tag(reference.tag)) {
      refuse("the tag '" + reference.tag +
             "' must be 1 to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-'");
    }
  } else {
    reference.tag = "latest";
  }
  if (name.size() > kMaxNameLength) refuse("the name is longer than 255 characters");
  std::string_view path = name;
  const size_t first_slash = name.find('/');
  const std::string_view first = name.substr(0, first_slash);
  if (first_slash != std::string_view::npos &&
      (first.find_first_of(".:") != std::string_view::npos || first == "localhost")) {
    if (!is_registry(first)) refuse("'" + std::string(first) + "' is not a registry host[:port]");
    reference.registry = std::string(first);
    path = name.substr(first_slash + 1);
  } else {
    reference.registry = "docker.io";
  }
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = std::min(path.find('/', start), path.size());
    const std::string_view component = path.substr(start, slash - start);
    if (!is_path_component(component)) {
      refuse("the path component '" + std::string(component) +
             "' must be lower-case letters and digits, separated by '.', '_', '__' or '-'");
    }
    start = slash + 1;
  }
  reference.repository = std::string(name);
  return reference;
}

void check_local_image_name(std::string_view text, const std::string& what) {
  for (const char c : text) {
    if (!is_alnum(c) && std::string_view("._-/:@").find(c) == std::string_view::npos) {
      throw Error::invalid_argument(
          what + " '" + std::string(text) +
          "' is not an image name the Docker Engine knows (letters, digits and "
          "._-/:@ only)");
    }
  }
}

}  // namespace sortie::image_push
