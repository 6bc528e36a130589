// Status without a cluster: Slurm's states as sortie's, pending reasons in words with a hint,
// and a job Slurm has forgotten on a cluster without accounting.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app_records.hpp"
#include "app_status.hpp"
#include "pending_reason.hpp"

namespace sortie::slurm {
namespace {

// A one-job app (job 12) of `replicas` replicas of role main whose job directory holds `files`
// (path in it -> content).
AppRecord one_job_app(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& files,
                      int64_t replicas = 1) {
  const std::string job_dir = ::testing::TempDir() + "slurm-" + name;
  std::filesystem::remove_all(job_dir);
  std::filesystem::create_directories(job_dir);
  for (const auto& [path, content] : files) {
    std::filesystem::create_directories(std::filesystem::path(job_dir + "/" + path).parent_path());
    std::ofstream(job_dir + "/" + path) << content;
  }
  AppRecord record;
  record.job_ids = {"12"};
  record.plan.app_id = "app-" + name;
  record.plan.job_dir = job_dir;
  record.plan.roles = {{"main", replicas}};
  return record;
}

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
  record.job_ids = {"77"};
  record.plan.app_id = "app-1";
  record.plan.job_dir = job_dir;
  record.plan.roles = {{"main", 1}};

  AppStatus status = build_status(record, {nullptr}, true);
  EXPECT_EQ(status.state, AppState::kUnknown);
  EXPECT_EQ(status.msg,
            "Slurm has forgotten job 77 (it left squeue and accounting is disabled, so sacct "
            "cannot say how it ended)");

  const JobFacts completed{"COMPLETED", "None", "0:0", false};
  EXPECT_EQ(build_status(record, {&completed}, true).state, AppState::kSucceeded);
  status = build_status(record, {nullptr}, true);  // squeue forgot it since; the record did not
  EXPECT_EQ(status.state, AppState::kSucceeded);
  EXPECT_EQ(status.msg, "");
}

// An app of a job per role (role_jobs=separate): running while any job runs, failed once all ended
// if any failed; each role's replicas follow their own job.
TEST(SlurmStatusWords, AnAppOfSeveralJobsAggregatesTheirStates) {
  const auto state_of = [](const std::string& name, const JobFacts& ps, const JobFacts& worker) {
    const std::string job_dir = ::testing::TempDir() + "slurm-separate-" + name;
    std::filesystem::remove_all(job_dir);
    std::filesystem::create_directories(job_dir);
    AppRecord record;
    record.job_ids = {"10", "11"};
    record.plan.app_id = "app-2";
    record.plan.job_dir = job_dir;
    record.plan.roles = {{"ps", 1}, {"worker", 1}};
    record.plan.separate_jobs = true;
    record.plan.dependents = {{"worker", "sortie-app=app-2/worker", "", {}}};
    return build_status(record, {&ps, &worker}, false);
  };
  const JobFacts running{"RUNNING", "None", "", false};
  const JobFacts pending{"PENDING", "Dependency", "", false};
  const JobFacts completed{"COMPLETED", "None", "0:0", true};
  const JobFacts failed{"FAILED", "None", "1:0", true};
  const JobFacts cancelled{"CANCELLED", "None", "0:15", true};
  EXPECT_EQ(state_of("a", running, pending).state, AppState::kRunning);
  EXPECT_EQ(state_of("b", failed, running).state, AppState::kRunning);
  AppStatus status = state_of("c", completed, failed);
  EXPECT_EQ(status.state, AppState::kFailed);
  EXPECT_EQ(status.roles.at(0).replicas.at(0).state, AppState::kSucceeded);
  EXPECT_EQ(status.roles.at(1).replicas.at(0).state, AppState::kFailed);
  EXPECT_EQ(state_of("d", cancelled, cancelled).state, AppState::kCancelled);
  EXPECT_EQ(state_of("e", completed, completed).state, AppState::kSucceeded);
  status = state_of("f", completed, pending);
  EXPECT_EQ(status.state, AppState::kPending);
  EXPECT_EQ(status.msg, explain_pending("Dependency", "11"));
}

TEST(SlurmStatusWords, ATimeLimitBeyondMaxTimeoutsIsNamed) {
  const AppRecord record = one_job_app(
      "timeouts",
      {{"attempts", "start 0\nend 0 timeout\nstart 1\nend 1 failed 3\nstart 2\nend 2 timeout\n"}});
  const JobFacts failed{"FAILED", "None", "1:0", true};
  const AppStatus status = build_status(record, {&failed}, false);
  EXPECT_EQ(status.state, AppState::kFailed);
  EXPECT_EQ(status.msg,
            "job 12 reached its time limit 2 time(s), more than the run option max_timeouts "
            "allows");
  EXPECT_EQ(status.num_restarts, 2);
  const auto metadata = [&](const std::string& key) {
    for (const auto& [name, value] : status.metadata) {
      if (name == key) return value;
    }
    return std::string("<none>");
  };
  EXPECT_EQ(metadata("slurm.timeouts"), "2");
  EXPECT_EQ(metadata("slurm.failures"), "1");
  EXPECT_EQ(metadata("slurm.preemptions"), "0");
}

// Issue: a failed app's message was empty. It names the replica that failed first in the latest
// attempt, where and how; without a failed replica, the job and its batch script's last line.
TEST(SlurmStatusWords, AFailedAppSaysWhichReplicaFailedAndHow) {
  const auto failed_app = [](const std::string& name,
                             const std::vector<std::pair<std::string, std::string>>& files) {
    const JobFacts failed{"FAILED", "None", "3:0", true};
    return build_status(one_job_app("failed-" + name, files, 2), {&failed}, false);
  };
  AppStatus status =
      failed_app("exit", {{"attempts", "start 0\nend 0 failed 3\nstart 1\nend 1 failed 3\n"},
                          {"logs/main/0/attempt-1/started", "node-a 100 1000\n"},
                          {"logs/main/0/attempt-1/exit", "0 0 2000\n"},
                          {"logs/main/1/attempt-1/started", "node-b 101 1000\n"},
                          {"logs/main/1/attempt-1/exit", "3 0 1500\n"}});
  EXPECT_EQ(status.state, AppState::kFailed);
  EXPECT_EQ(status.msg, "replica main/1 (on node-b) failed: exited with code 3");
  EXPECT_EQ(status.roles.at(0).replicas.at(1).msg, "exited with code 3");
  EXPECT_EQ(status.roles.at(0).replicas.at(0).msg, "");

  // Two failed: the first to fail is named (the other most often failed because of it).
  status = failed_app("signal", {{"attempts", "start 0\nend 0 failed 137\n"},
                                 {"logs/main/0/attempt-0/started", "node-a 100 1000\n"},
                                 {"logs/main/0/attempt-0/exit", "137 9 1200\n"},
                                 {"logs/main/1/attempt-0/started", "node-b 101 1000\n"},
                                 {"logs/main/1/attempt-0/exit", "1 0 1500\n"}});
  EXPECT_EQ(status.msg, "replica main/0 (on node-a) failed: killed by signal 9");

  // No replica failed (the batch script gave up): the job says why.
  status = failed_app("script", {{"attempts", "start 0\n"},
                                 {"slurm-12.out",
                                  "srun: Job step aborted\nsortie: requeued more than "
                                  "max_preemptions=3 times\n\n"}});
  EXPECT_EQ(status.msg,
            "job 12 ended FAILED (exit code 3:0); its batch script's last line: sortie: requeued "
            "more than max_preemptions=3 times");
  status = failed_app("silent", {{"attempts", ""}});
  EXPECT_EQ(status.msg,
            "job 12 ended FAILED (exit code 3:0); no replica failed, and its batch script printed "
            "nothing");
}

// Issue 26: a job Slurm forgot stayed UNKNOWN for ever (and was asked about on every poll). One
// sortie cancelled (a pending array task leaves squeue and sacct at once) is CANCELLED; one
// forgotten without a cancel is FAILED once unknown for kForgottenGraceS; either is kept as final.
TEST(SlurmStatusWords, AForgottenJobIsCancelledIfSortieCancelledItElseFailedAfterTheGrace) {
  AppRecord record = one_job_app("forgotten-cancelled", {});
  AppRecords::mark_cancelled(record.plan, 0);
  AppStatus status = build_status(record, {nullptr}, false, 1000);
  EXPECT_EQ(status.state, AppState::kCancelled);
  EXPECT_EQ(status.msg, "job 12 was cancelled by sortie; Slurm has forgotten it since");
  EXPECT_EQ(status.roles.at(0).replicas.at(0).state, AppState::kCancelled);
  ASSERT_TRUE(AppRecords::final_state(record.plan, 0));
  EXPECT_EQ(build_status(record, {nullptr}, false, 1000).msg, status.msg);  // from the record

  record = one_job_app("forgotten-lost", {});
  status = build_status(record, {nullptr}, false, 1000);
  EXPECT_EQ(status.state, AppState::kUnknown);
  EXPECT_EQ(status.msg, "Slurm has forgotten job 12 (neither squeue nor sacct knows it)");
  EXPECT_EQ(build_status(record, {nullptr}, false, 1000 + kForgottenGraceS - 1).state,
            AppState::kUnknown);
  status = build_status(record, {nullptr}, false, 1000 + kForgottenGraceS);
  EXPECT_EQ(status.state, AppState::kFailed);
  EXPECT_EQ(status.msg, "Slurm has forgotten job 12: neither squeue nor sacct has known it for " +
                            std::to_string(kForgottenGraceS) + " s, and sortie did not cancel it");
  EXPECT_EQ(AppRecords::final_state(record.plan, 0)->state, "FAILED");

  // Seen again within the grace (a lagging sacct), the count starts over.
  record = one_job_app("forgotten-found", {});
  build_status(record, {nullptr}, false, 1000);
  const JobFacts pending{"PENDING", "Priority", "", true};
  EXPECT_EQ(build_status(record, {&pending}, false, 1005).state, AppState::kPending);
  EXPECT_EQ(build_status(record, {nullptr}, false, 1000 + kForgottenGraceS).state,
            AppState::kUnknown);

  // Without accounting, sacct cannot say: no grace makes it FAILED.
  record = one_job_app("forgotten-no-accounting", {});
  build_status(record, {nullptr}, true, 1000);
  EXPECT_EQ(build_status(record, {nullptr}, true, 1000 + 10 * kForgottenGraceS).state,
            AppState::kUnknown);
}

}  // namespace
}  // namespace sortie::slurm
