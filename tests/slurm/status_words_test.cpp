// Status without a cluster: Slurm's states as sortie's, pending reasons in words with a hint,
// and a job Slurm has forgotten on a cluster without accounting.
#include <gtest/gtest.h>

#include <filesystem>

#include "app_records.hpp"
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

TEST(SlurmStatusWords, WithoutAccountingTheTerminalStateSeenIsKept) {
  const std::string job_dir = ::testing::TempDir() + "slurm-forgotten-job";
  std::filesystem::remove_all(job_dir);
  std::filesystem::create_directories(job_dir);
  AppRecord record;
  record.job_id = "77";
  record.plan.app_id = "app-1";
  record.plan.job_dir = job_dir;
  record.plan.roles = {{"main", 1}};

  AppStatus status = build_status(record, nullptr, true);
  EXPECT_EQ(status.state, AppState::kUnknown);
  EXPECT_EQ(status.msg,
            "Slurm has forgotten job 77 (it left squeue and accounting is disabled, so sacct "
            "cannot say how it ended)");

  const JobFacts completed{"COMPLETED", "None", "0:0", false};
  EXPECT_EQ(build_status(record, &completed, true).state, AppState::kSucceeded);
  status = build_status(record, nullptr, true);  // squeue forgot it since; the record did not
  EXPECT_EQ(status.state, AppState::kSucceeded);
  EXPECT_EQ(status.msg, "");
}

}  // namespace
}  // namespace sortie::slurm
