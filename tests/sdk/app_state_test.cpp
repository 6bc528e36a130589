#include <gtest/gtest.h>

#include <sortie/app_state.hpp>
#include <string>
#include <string_view>
#include <utility>

namespace sortie {
namespace {

TEST(AppStateTest, NamesRoundTrip) {
  for (std::size_t i = 0; i < kAppStateNames.size(); ++i) {
    const auto state = static_cast<AppState>(i);
    EXPECT_EQ(app_state_from_name(app_state_name(state)), state);
  }
  EXPECT_EQ(app_state_name(AppState::kCancelled), "CANCELLED");
  EXPECT_EQ(app_state_from_name("running"), std::nullopt);
  EXPECT_EQ(app_state_or_unknown("RUNNING"), AppState::kRunning);
  EXPECT_EQ(app_state_or_unknown("JOB_STATE_QUEUED"), AppState::kUnknown);
}

TEST(AppStateTest, OnlySucceededFailedAndCancelledAreTerminal) {
  static_assert(is_terminal(AppState::kSucceeded) && is_terminal(AppState::kFailed) &&
                is_terminal(AppState::kCancelled));
  for (const AppState state : {AppState::kUnsubmitted, AppState::kSubmitted, AppState::kPending,
                               AppState::kRunning, AppState::kUnknown}) {
    EXPECT_FALSE(is_terminal(state)) << app_state_name(state);
  }
  EXPECT_TRUE(is_terminal("FAILED"));
  EXPECT_FALSE(is_terminal("RUNNING"));
  EXPECT_FALSE(is_terminal("failed"));
}

TEST(AppStateTest, NativeStatesMapThroughATable) {
  static constexpr std::pair<std::string_view, AppState> kPhases[] = {
      {"Queued", AppState::kPending}, {"Done", AppState::kSucceeded}};
  static_assert(state_in(kPhases, std::string_view("Done")) == AppState::kSucceeded);
  EXPECT_EQ(state_in(kPhases, std::string("Queued")), AppState::kPending);
  EXPECT_EQ(state_in(kPhases, std::string_view("Lost")), AppState::kUnknown);
  EXPECT_EQ(state_in(kPhases, std::string_view("Lost"), AppState::kPending), AppState::kPending);
}

TEST(RetryPolicyTest, NamesRoundTrip) {
  EXPECT_EQ(retry_policy_name(RetryPolicy::kReplica), "REPLICA");
  EXPECT_EQ(retry_policy_name(RetryPolicy::kApplication), "APPLICATION");
  EXPECT_EQ(retry_policy_name(RetryPolicy::kRole), "ROLE");
  EXPECT_EQ(retry_policy_from_name("ROLE"), RetryPolicy::kRole);
  EXPECT_EQ(retry_policy_from_name("role"), std::nullopt);
}

}  // namespace
}  // namespace sortie
