#include "model_suggest.hpp"

#include <algorithm>
#include <utility>

namespace sortie::core {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> close_names(std::string_view name,
                                     const std::vector<std::string>& candidates) {
  // A third of the name's length tolerates one typo in short names and a few in long ones.
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& candidate : candidates) {
    const size_t distance = edit_distance(name, candidate);
    if (distance <= limit && candidate != name) scored.emplace_back(distance, candidate);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> result;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) result.push_back(scored[i].second);
  return result;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const auto close = close_names(name, candidates);
  if (close.empty()) return "";
  std::string text = " (did you mean ";
  for (size_t i = 0; i < close.size(); ++i) {
    if (i > 0) text += i + 1 == close.size() ? " or " : ", ";
    text += "'" + close[i] + "'";
  }
  return text + "?)";
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) {
    if (!text.empty()) text += ", ";
    text += "'" + item + "'";
  }
  return text;
}

}  // namespace sortie::core
