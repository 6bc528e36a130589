// File: sortie/macros.hpp
//
// Per-replica macro substitution for schedulers (docs/payloads.md P-12). A scheduler fills a
// MacroValues for each replica and applies it to the role's args, env values and metadata
// strings. Unknown ${...} text is left as written, so shell-style variables survive.
#ifndef SORTIE_MACROS_HPP
#define SORTIE_MACROS_HPP

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie {

class MacroValues {
 public:
  // Sets ${name} to value; a later set() of the same name replaces the earlier one.
  MacroValues& set(std::string name, std::string value) {
    for (auto& entry : values_) {
      if (entry.first == name) {
        entry.second = std::move(value);
        return *this;
      }
    }
    values_.emplace_back(std::move(name), std::move(value));
    return *this;
  }

  // Returns text with every known ${name} replaced; one pass, so values are not re-expanded.
  std::string apply(std::string_view text) const {
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t open = text.find("${", pos);
      if (open == std::string_view::npos) break;
      const size_t close = text.find('}', open + 2);
      if (close == std::string_view::npos) break;
      out.append(text.substr(pos, open - pos));
      const std::string_view name = text.substr(open + 2, close - open - 2);
      const std::string* value = find(name);
      if (value != nullptr) {
        out.append(*value);
      } else {
        out.append(text.substr(open, close - open + 1));
      }
      pos = close + 1;
    }
    out.append(text.substr(pos));
    return out;
  }

 private:
  const std::string* find(std::string_view name) const {
    for (const auto& entry : values_) {
      if (entry.first == name) return &entry.second;
    }
    return nullptr;
  }
  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace sortie

#endif  // SORTIE_MACROS_HPP
