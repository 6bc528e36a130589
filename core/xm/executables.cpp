// File: core/xm/executables.cpp
//
// Executable specs' kinds (docs/payloads.md P-13) and XManager's default executable names
// (xm/executables.py name_from_path: re.sub(r'\W', '_', basename(path.rstrip('/')))).
#include <sortie/xm.hpp>
#include <type_traits>

namespace sortie::xm {
namespace {

// Python's \W on text: bytes of multi-byte UTF-8 characters count as word characters, as
// Python's Unicode-aware \w treats letters beyond ASCII.
bool is_word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c >= 0x80;
}

std::string name_from(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  const size_t slash = text.rfind('/');
  if (slash != std::string::npos) text.erase(0, slash + 1);
  for (char& c : text) {
    if (!is_word_byte(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

// A Bazel label's target: "//pkg:target" -> "target", "//pkg/target" -> "target".
std::string label_target(const std::string& label) {
  const size_t colon = label.rfind(':');
  return colon == std::string::npos ? label : label.substr(colon + 1);
}

}  // namespace

std::string kind_of(const ExecutableSpec& spec) {
  return std::visit(
      [](const auto& s) -> std::string {
        using Spec = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<Spec, Binary>) {
          return "binary";
        } else if constexpr (std::is_same_v<Spec, BazelBinary>) {
          return "bazel_binary";
        } else if constexpr (std::is_same_v<Spec, Container>) {
          return "container";
        } else if constexpr (std::is_same_v<Spec, BazelContainer>) {
          return "bazel_container";
        } else if constexpr (std::is_same_v<Spec, PythonContainer>) {
          return "python_container";
        } else {
          static_assert(std::is_same_v<Spec, Dockerfile>);
          return "dockerfile";
        }
      },
      spec);
}

std::string default_name(const ExecutableSpec& spec) {
  return std::visit(
      [](const auto& s) -> std::string {
        using Spec = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<Spec, BazelBinary> || std::is_same_v<Spec, BazelContainer>) {
          return name_from(label_target(s.label));
        } else if constexpr (std::is_same_v<Spec, Container>) {
          return name_from(s.image_path);
        } else {
          return name_from(s.path);
        }
      },
      spec);
}

}  // namespace sortie::xm
