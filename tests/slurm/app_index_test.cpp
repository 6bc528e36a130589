// Status for N apps reads each app's record once (AppIndex), however often they are described:
// a watcher of 50 apps pays 50 record reads, not 50 per describe.
#include "app_index.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sortie/error.hpp>

namespace sortie::slurm {
namespace {

class SlurmAppIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(state_dir_);
    for (int i = 0; i < 50; ++i) record("app-" + std::to_string(i), i % 2 == 0 ? "even" : "odd");
  }
  void TearDown() override { std::filesystem::remove_all(state_dir_); }
  void record(const std::string& app_id, const std::string& session) {
    BatchPlan plan;
    plan.app_id = app_id;
    plan.session = session;
    plan.job_dir = state_dir_ + "/jobs/" + app_id;
    plan.roles = {{"main", 1}};
    plan.sbatch_argv = {"sbatch", "--parsable", plan.job_dir + "/batch.sh"};
    records_.write_job_dir(plan);
    records_.save(plan, {std::to_string(1000 + recorded_++)});
  }

  // Per process: ctest runs this suite's tests side by side.
  std::string state_dir_ = ::testing::TempDir() + "slurm-app-index-" + std::to_string(::getpid());
  int recorded_ = 0;
  AppRecords records_{state_dir_};
};

TEST_F(SlurmAppIndex, DescribingNAppsManyTimesReadsEachRecordOnce) {
  AppIndex index(records_);
  for (int poll = 0; poll < 10; ++poll) {
    for (int i = 0; i < 50; ++i) {
      const AppRecord& record = index.load("app-" + std::to_string(i));
      EXPECT_EQ(index.unfinished_jobs(record.plan.session).size(), 25u);
    }
  }
  EXPECT_EQ(index.record_reads(), 50);
  EXPECT_EQ(index.all().size(), 50u);
  EXPECT_EQ(index.record_reads(), 50);
}

TEST_F(SlurmAppIndex, AnEndedAppIsAskedAboutNoMoreAndANewOneIsMet) {
  AppIndex index(records_);
  index.load("app-0");
  index.mark_ended("app-0");
  EXPECT_TRUE(index.has_ended("app-0"));
  EXPECT_EQ(index.unfinished_jobs("even").size(), 24u);
  EXPECT_THROW(index.load("app-50"), Error);
  record("app-50", "even");
  EXPECT_EQ(index.load("app-50").job_ids, std::vector<std::string>{"1050"});
}

}  // namespace
}  // namespace sortie::slurm
