// App states and retry policies as sortie.status/1 and sortie.appdef/1 name them
// (docs/payloads.md P-2, P-8), and which states are final. Standard library only, so the host
// and every plugin share one definition.
#ifndef SORTIE_APP_STATE_HPP
#define SORTIE_APP_STATE_HPP

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace sortie {

// TorchX's AppState; replica states use the same names.
enum class AppState {
  kUnsubmitted,
  kSubmitted,
  kPending,
  kRunning,
  kSucceeded,
  kFailed,
  kCancelled,
  kUnknown
};

// What restarts when a replica fails (and max_retries allows it).
enum class RetryPolicy { kReplica, kApplication, kRole };

inline constexpr std::array<std::string_view, 8> kAppStateNames = {
    "UNSUBMITTED", "SUBMITTED", "PENDING",   "RUNNING",
    "SUCCEEDED",   "FAILED",    "CANCELLED", "UNKNOWN"};
inline constexpr std::array<std::string_view, 3> kRetryPolicyNames = {"REPLICA", "APPLICATION",
                                                                      "ROLE"};

constexpr std::string_view app_state_name(AppState state) noexcept {
  return kAppStateNames[static_cast<std::size_t>(state)];
}

constexpr std::optional<AppState> app_state_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kAppStateNames.size(); ++i) {
    if (kAppStateNames[i] == name) return static_cast<AppState>(i);
  }
  return std::nullopt;
}

// For states a backend reports: a name this version does not know reads as UNKNOWN.
constexpr AppState app_state_or_unknown(std::string_view name) noexcept {
  return app_state_from_name(name).value_or(AppState::kUnknown);
}

// A backend's native state as an AppState through a table of (native, AppState) pairs, TorchX's
// habit: one place lists what each native state means. `otherwise` for a state the table lacks.
template <typename Native, std::size_t N, typename Key>
constexpr AppState state_in(const std::pair<Native, AppState> (&table)[N], const Key& native,
                            AppState otherwise = AppState::kUnknown) {
  for (const auto& entry : table) {
    if (entry.first == native) return entry.second;
  }
  return otherwise;
}

// SUCCEEDED, FAILED and CANCELLED are final: a terminal app or replica never changes state again.
constexpr bool is_terminal(AppState state) noexcept {
  return state == AppState::kSucceeded || state == AppState::kFailed ||
         state == AppState::kCancelled;
}
// The same for a state name; an unknown name is not terminal.
constexpr bool is_terminal(std::string_view state_name) noexcept {
  const std::optional<AppState> state = app_state_from_name(state_name);
  return state && is_terminal(*state);
}

constexpr std::string_view retry_policy_name(RetryPolicy policy) noexcept {
  return kRetryPolicyNames[static_cast<std::size_t>(policy)];
}

constexpr std::optional<RetryPolicy> retry_policy_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kRetryPolicyNames.size(); ++i) {
    if (kRetryPolicyNames[i] == name) return static_cast<RetryPolicy>(i);
  }
  return std::nullopt;
}

}  // namespace sortie

#endif  // SORTIE_APP_STATE_HPP
