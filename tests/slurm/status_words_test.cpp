// Status without a cluster: Slurm's states as sortie's, and pending reasons in words with a hint.
#include <gtest/gtest.h>

#include "app_status.hpp"
#include "pending_reason.hpp"

namespace sortie::slurm {
namespace {

TEST(SlurmStatusWords, StatesMapOntoAppStates) {
  EXPECT_EQ(app_state_of("PENDING"), AppState::kPending);
  EXPECT_EQ(app_state_of("REQUEUED"), AppState::kPending);
  EXPECT_EQ(app_state_of("RUNNING"), AppState::kRunning);
  EXPECT_EQ(app_state_of("COMPLETING"), AppState::kRunning);
  EXPECT_EQ(app_state_of("COMPLETED"), AppState::kSucceeded);
  EXPECT_EQ(app_state_of("TIMEOUT"), AppState::kFailed);
  EXPECT_EQ(app_state_of("OUT_OF_MEMORY"), AppState::kFailed);
  EXPECT_EQ(app_state_of("CANCELLED"), AppState::kCancelled);
  EXPECT_EQ(app_state_of("SOMETHING_NEW"), AppState::kUnknown);
}

TEST(SlurmStatusWords, PendingReasonsReadAsWordsWithAHint) {
  EXPECT_EQ(explain_pending("JobHeldUser", "42"),
            "pending: held by its user (JobHeldUser); release it with `scontrol release 42`");
  EXPECT_NE(explain_pending("DependencyNeverSatisfied", "7").find("can never be satisfied"),
            std::string::npos);
  EXPECT_NE(explain_pending("QOSMaxCpuPerUserLimit", "7").find("quality of service"),
            std::string::npos);
  EXPECT_EQ(explain_pending("NewReason", "9"),
            "pending (NewReason); `scontrol show job 9` says more");
}

}  // namespace
}  // namespace sortie::slurm
