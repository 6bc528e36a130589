#include <algorithm>
#include <sortie/registry/edit_distance.hpp>
#include <sortie/registry/suggest.hpp>
#include <utility>

namespace sortie::registry {

std::vector<std::string> close_names(std::string_view name,
                                     const std::vector<std::string>& candidates) {
  // A third of the name's length tolerates one typo in short names and a few in long ones.
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& candidate : candidates) {
    if (candidate == name) continue;
    const size_t distance = edit_distance(name, candidate);
    const std::string_view other = candidate;
    const bool prefix = std::min(name.size(), other.size()) >= 3 &&
                        (other.starts_with(name) || name.starts_with(other));
    if (distance <= limit || prefix) scored.emplace_back(distance, candidate);
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

}  // namespace sortie::registry
