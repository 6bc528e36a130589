// Log line patterns bounded before regcomp (line_regex.hpp).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sortie/session/line_regex.hpp>
#include <vector>

namespace sortie::session {
namespace {

// How many atoms `pattern` becomes once glibc's regcomp writes each x{m,n} out as max(m, n)
// copies of x (and x+ as xx*), capped just past `cap`. regcomp's memory grows with the square of
// this (a{1,10000}: 790 MB), so it is counted on the text first (L-15).
size_t expanded_atoms(const std::string& pattern, size_t cap) {
  struct Group {
    size_t total = 0;  // atoms of the group so far
    size_t last = 0;   // atoms of its last atom, which a repetition multiplies
  };
  const auto add = [cap](size_t a, size_t b) { return std::min(a + b, cap + 1); };
  const auto times = [cap](size_t a, size_t b) {
    return a != 0 && b > (cap + 1) / a ? cap + 1 : std::min(a * b, cap + 1);
  };
  std::vector<Group> groups(1);
  const auto atom = [&](size_t atoms) {
    groups.back().total = add(groups.back().total, atoms);
    groups.back().last = atoms;
  };
  const auto repeat = [&](size_t copies) {
    Group& group = groups.back();
    const size_t grown = times(group.last, copies);
    group.total = add(group.total - group.last, grown);
    group.last = grown;
  };
  // The number at `i`, or nullopt; past 6 digits it stops (regcomp refuses any bound over 32767).
  const auto number = [&](size_t& i) -> std::optional<size_t> {
    size_t value = 0;
    const size_t start = i;
    while (i < pattern.size() && i - start < 6 &&
           std::isdigit(static_cast<unsigned char>(pattern[i]))) {
      value = value * 10 + static_cast<size_t>(pattern[i++] - '0');
    }
    if (i == start) return std::nullopt;
    return value;
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
      atom(1);
    } else if (c == '[') {
      // A bracket expression is one atom; ']' first, and [:class:] inside, do not end it.
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') {
        if (pattern[j] == '[' && j + 1 < pattern.size() && std::strchr(":.=", pattern[j + 1])) {
          const size_t close = pattern.find(std::string{pattern[j + 1], ']'}, j + 2);
          j = close == std::string::npos ? pattern.size() : close + 2;
        } else {
          ++j;
        }
      }
      i = j;
      atom(1);
    } else if (c == '(') {
      groups.emplace_back();
    } else if (c == ')' && groups.size() > 1) {
      const size_t inner = std::max<size_t>(groups.back().total, 1);
      groups.pop_back();
      atom(inner);
    } else if (c == '+') {
      repeat(2);
    } else if (c == '{') {
      size_t j = i + 1;
      const auto low = number(j);
      std::optional<size_t> high = low;
      if (j < pattern.size() && pattern[j] == ',') {
        ++j;
        high = number(j);
        if (!high && low) high = *low + 1;  // x{m,} is m copies and x*
      }
      if (!low && !high) {
        atom(1);  // not a bound: regcomp judges it
        continue;
      }
      if (j < pattern.size() && pattern[j] == '}') i = j;
      repeat(std::max<size_t>({low.value_or(0), high.value_or(0), 1}));
    } else if (c != '*' && c != '?' && c != '|' && c != '^' && c != '$') {
      atom(1);
    }
  }
  size_t atoms = groups.front().total;
  for (size_t g = 1; g < groups.size(); ++g) atoms = add(atoms, groups[g].total);
  return atoms;
}

// Compiles `pattern` into `compiled`, or says why it cannot (leaving nothing to free).
std::optional<std::string> compile(const std::string& pattern, regex_t& compiled) {
  const size_t cap = limits::value(limits::kRegexAtoms);
  if (expanded_atoms(pattern, cap) > cap) {
    return limits::exceeded("the pattern with its repetitions written out", limits::kRegexAtoms) +
           ", or use smaller {m,n} bounds";
  }
  const int rc = regcomp(&compiled, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc == 0) return std::nullopt;
  char message[256];
  regerror(rc, &compiled, message, sizeof message);
  regfree(&compiled);
  return message;
}

}  // namespace

std::optional<std::string> regex_error(const std::string& pattern) {
  regex_t compiled;
  auto why = compile(pattern, compiled);
  if (!why) regfree(&compiled);
  return why;
}

LineRegex::LineRegex(const std::string& pattern, const std::string& what) {
  if (auto why = compile(pattern, compiled_)) {
    throw Error::invalid_argument(what + " '" + pattern + "': " + *why);
  }
}

LineRegex::~LineRegex() { regfree(&compiled_); }

bool LineRegex::matches(const std::string& line) const {
  return regexec(&compiled_, line.c_str(), 0, nullptr, 0) == 0;
}

}  // namespace sortie::session
