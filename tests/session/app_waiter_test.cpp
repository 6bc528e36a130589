// sortie/session/app_waiter.hpp through the local scheduler: the waiter records the terminal
// state, and an intermediate state once it has held, or when the wait returns before the end.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/launcher.hpp>
#include <sortie/session/session.hpp>
#include <sortie/store/store.hpp>
#include <string>

namespace sortie::session {
namespace {

class AppWaiterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "sortie-app-waiter-XXXXXX";
    state_dir_ = ::mkdtemp(pattern.data());
    ::setenv("SORTIE_STATE_DIR", state_dir_.c_str(), 1);
    SessionOptions options;
    options.plugin_dirs = {SORTIE_STAGE_DIR "/share/sortie/plugins.d"};
    options.quiet = true;
    session_ = std::make_unique<Session>(options);
    scheduler_ = session_->scheduler("local_cwd", "default");
  }
  void TearDown() override {
    scheduler_.reset();
    session_.reset();
    ::unsetenv("SORTIE_STATE_DIR");
    std::filesystem::remove_all(state_dir_);
  }
  // Launches `sleep seconds` and returns its handle; *app_id is set to its id.
  std::string launch_sleep(const std::string& seconds, std::string* app_id) {
    LaunchPlan plan;
    plan.scheduler = "local_cwd";
    plan.session = "default";
    plan.app.name = "sleeper";
    Role role;
    role.name = "sleeper";
    role.entrypoint = "sleep";
    role.args = {seconds};
    plan.app.roles.push_back(role);
    Launcher launcher(*session_, *scheduler_);
    const DryRunResult dry = launcher.dryrun(plan);
    *app_id = dry.app_id;
    return launcher.schedule(plan, dry);
  }
  model::AppState recorded_state(const std::string& handle) {
    return session_->store().last_status(handle).value().state;
  }

  std::string state_dir_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<plugin_host::SchedulerClient> scheduler_;
};

TEST_F(AppWaiterTest, AStateStillCurrentWhenTheWaitTimesOutIsRecorded) {
  std::string app_id;
  const std::string handle = launch_sleep("30", &app_id);
  AppWaiter waiter(*scheduler_, *session_, handle, app_id);
  EXPECT_FALSE(waiter.until_terminal(1000).has_value());
  ASSERT_TRUE(waiter.last().has_value());
  EXPECT_EQ(waiter.last()->state, model::AppState::kRunning);
  EXPECT_EQ(recorded_state(handle), model::AppState::kRunning);
  scheduler_->cancel(app_id);
  const auto end = waiter.until_terminal(10'000);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(recorded_state(handle), end->state);
}

TEST_F(AppWaiterTest, AStateThatHeldIsRecordedWhileTheWaitGoesOn) {
  std::string app_id;
  const std::string handle = launch_sleep("1", &app_id);
  AppWaiter waiter(*scheduler_, *session_, handle, app_id);
  // Steps until RUNNING has held through one step: the store says so before the app ends.
  while (!waiter.last() || waiter.last()->state != model::AppState::kRunning) waiter.step(10'000);
  EXPECT_EQ(waiter.step(10'000).state, model::AppState::kRunning);
  EXPECT_EQ(recorded_state(handle), model::AppState::kRunning);
  const auto end = waiter.until_terminal(10'000);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->state, model::AppState::kSucceeded);
  EXPECT_EQ(recorded_state(handle), model::AppState::kSucceeded);
}

}  // namespace
}  // namespace sortie::session
