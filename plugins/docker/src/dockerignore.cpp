#include "dockerignore.hpp"

#include <algorithm>

namespace sortie::docker {
namespace {

// Lexically cleans a pattern like Go's filepath.Clean, without a leading '/'.
std::string clean(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t slash = text.find('/', start);
    if (slash == std::string_view::npos) slash = text.size();
    const std::string_view part = text.substr(start, slash - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.emplace_back(part);
    }
    start = slash + 1;
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "/") + part;
  return out;
}

// Matches one '[...]' class at pattern[0] against c; sets *length to the class's length.
bool class_match(std::string_view pattern, char c, size_t* length) {
  size_t i = 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '^' || pattern[i] == '!')) {
    negate = true;
    ++i;
  }
  bool matched = false;
  bool first = true;
  while (i < pattern.size() && (first || pattern[i] != ']')) {
    first = false;
    char low = pattern[i];
    if (low == '\\' && i + 1 < pattern.size()) low = pattern[++i];
    char high = low;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      high = pattern[i + 2];
      if (high == '\\' && i + 3 < pattern.size()) high = pattern[++i + 2];
      i += 2;
    }
    matched = matched || (c >= low && c <= high);
    ++i;
  }
  *length = i < pattern.size() ? i + 1 : pattern.size();
  return matched != negate;
}

size_t count_components(std::string_view path) {
  return static_cast<size_t>(std::count(path.begin(), path.end(), '/')) + 1;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  while (!pattern.empty()) {
    const char p = pattern.front();
    if (p == '*' && pattern.size() > 1 && pattern[1] == '*') {
      std::string_view rest = pattern.substr(2);
      if (!rest.empty() && rest.front() == '/') {
        rest.remove_prefix(1);  // "**/" matches zero or more whole components
        if (glob_match(rest, path)) return true;
        for (size_t i = 0; i < path.size(); ++i) {
          if (path[i] == '/' && glob_match(rest, path.substr(i + 1))) return true;
        }
        return false;
      }
      for (size_t i = 0; i <= path.size(); ++i) {
        if (glob_match(rest, path.substr(i))) return true;
      }
      return false;
    }
    if (p == '*') {
      const std::string_view rest = pattern.substr(1);
      for (size_t i = 0; i <= path.size(); ++i) {
        if (glob_match(rest, path.substr(i))) return true;
        if (i < path.size() && path[i] == '/') break;
      }
      return false;
    }
    if (path.empty()) return false;
    if (p == '?') {
      if (path.front() == '/') return false;
      pattern.remove_prefix(1);
    } else if (p == '[') {
      size_t length = 0;
      if (path.front() == '/' || !class_match(pattern, path.front(), &length)) return false;
      pattern.remove_prefix(length);
    } else {
      char literal = p;
      if (p == '\\' && pattern.size() > 1) {
        literal = pattern[1];
        pattern.remove_prefix(1);
      }
      if (literal != path.front()) return false;
      pattern.remove_prefix(1);
    }
    path.remove_prefix(1);
  }
  return path.empty();
}

DockerIgnore::DockerIgnore(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    Pattern pattern;
    if (line.front() == '!') {
      pattern.exception = true;
      line.remove_prefix(1);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    }
    pattern.glob = clean(line);
    if (pattern.glob.empty()) continue;
    pattern.components = count_components(pattern.glob);
    patterns_.push_back(std::move(pattern));
  }
}

bool DockerIgnore::excluded(std::string_view path) const {
  bool excluded = false;
  const size_t components = count_components(path);
  for (const Pattern& pattern : patterns_) {
    bool match = glob_match(pattern.glob, path);
    if (!match && pattern.components < components) {
      // A pattern that matches a parent directory matches everything below it.
      size_t cut = 0;
      for (size_t seen = 0; seen < pattern.components; ++seen) cut = path.find('/', cut) + 1;
      match = glob_match(pattern.glob, path.substr(0, cut - 1));
    }
    if (match) excluded = !pattern.exception;
  }
  return excluded;
}

bool DockerIgnore::has_exceptions() const {
  return std::any_of(patterns_.begin(), patterns_.end(),
                     [](const Pattern& pattern) { return pattern.exception; });
}

}  // namespace sortie::docker
