// Atomic submit (finding F6, sortie/session/submission.hpp): a record left UNSUBMITTED by a
// submitter that died is settled by the next session that opens the store, and says so; one
// whose submitter still runs, or confirmed it before it died, is left alone. The same for a
// launch mark (sortie/session/launch_marker.hpp).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <sortie/session/session.hpp>
#include <sortie/session/submission.hpp>
#include <sortie/store/store.hpp>
#include <string>
#include <thread>
#include <vector>

namespace sortie::session {
namespace {

class SubmissionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "sortie-submission-XXXXXX";
    state_dir_ = ::mkdtemp(pattern.data());
    ::setenv("SORTIE_STATE_DIR", state_dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("SORTIE_STATE_DIR");
    std::filesystem::remove_all(state_dir_);
  }
  // A session over the staged plugins that collects what it reconciled.
  std::unique_ptr<Session> session() {
    SessionOptions options;
    options.plugin_dirs = {SORTIE_STAGE_DIR "/share/sortie/plugins.d"};
    options.quiet = true;
    options.on_reconciled = [this](const std::string& settled) { settled_.push_back(settled); };
    return std::make_unique<Session>(options);
  }
  // Records an app of local_cwd that its scheduler never received, as a submitter with
  // `message` left it, running the jobs of `unit` if given.
  static void record_unsubmitted(const std::string& app_id, const std::string& message,
                                 const std::optional<store::WorkUnitLink>& unit = std::nullopt) {
    auto store = store::AppStore::open(store::AppStore::default_path());
    store::AppRecord record;
    record.handle = "local_cwd://default/" + app_id;
    record.scheduler = "local_cwd";
    record.session = "default";
    record.app_id = app_id;
    record.name = "app";
    record.state = model::AppState::kUnsubmitted;
    record.msg = message;
    record.appdef_json = R"({"schema":"sortie.appdef/1","name":"app","roles":[]})";
    store->record_submission(record, unit);
  }
  static pid_t dead_pid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
  }
  // The message a submitter with pid `pid` leaves (submitting_message() of that process).
  static std::string message_of(pid_t pid) {
    std::string text = submitting_message();
    return text.replace(text.find(std::to_string(::getpid())), std::to_string(::getpid()).size(),
                        std::to_string(pid));
  }

  // Another process's write to the store, begun now and committed a second later: long enough
  // for a reconciler to list what it has not changed yet and then wait for the lock (should the
  // list come later, it sees the write and the test cannot tell a fix from its absence).
  class WriteCommittedLater {
   public:
    explicit WriteCommittedLater(const std::string& sql) {
      EXPECT_EQ(sqlite3_open(store::AppStore::default_path().c_str(), &db_), SQLITE_OK);
      EXPECT_EQ(sqlite3_exec(db_, ("BEGIN IMMEDIATE; " + sql).c_str(), nullptr, nullptr, nullptr),
                SQLITE_OK)
          << sqlite3_errmsg(db_);
      commit_ = std::thread([db = db_] {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      });
    }
    ~WriteCommittedLater() {
      commit_.join();
      sqlite3_close(db_);
    }
    WriteCommittedLater(const WriteCommittedLater&) = delete;
    WriteCommittedLater& operator=(const WriteCommittedLater&) = delete;

   private:
    sqlite3* db_ = nullptr;
    std::thread commit_;
  };

  std::string state_dir_;
  std::vector<std::string> settled_;
};

TEST_F(SubmissionTest, ARecordOfADeadSubmitterIsSettledAndSaid) {
  record_unsubmitted("orphan", message_of(dead_pid()));
  auto s = session();
  const auto status = s->store().last_status("local_cwd://default/orphan");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->state, model::AppState::kFailed);
  EXPECT_NE(status->msg.find("submission interrupted"), std::string::npos) << status->msg;
  ASSERT_EQ(settled_.size(), 1u);
  EXPECT_NE(settled_[0].find("local_cwd://default/orphan"), std::string::npos) << settled_[0];
}

TEST_F(SubmissionTest, AnExperimentsAppItsSchedulerNeverGotLeavesItsWorkUnitUnlaunched) {
  int64_t experiment = 0;
  {
    auto store = store::AppStore::open(store::AppStore::default_path());
    experiment = store->create_experiment("sweep", "/w");
    store->reserve_work_unit(experiment, "{}");
  }
  record_unsubmitted("unit-app", message_of(dead_pid()),
                     store::WorkUnitLink{experiment, 1, {{"train", "1_1_train", "", "train", ""}}});
  auto s = session();
  const auto units = s->store().work_units(experiment);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].jobs.empty());
  EXPECT_EQ(s->store().get("local_cwd://default/unit-app")->state, model::AppState::kFailed);
}

TEST_F(SubmissionTest, ARecordOfALiveSubmitterIsLeftAlone) {
  record_unsubmitted("busy", submitting_message());
  auto s = session();
  EXPECT_EQ(s->store().get("local_cwd://default/busy")->state, model::AppState::kUnsubmitted);
  EXPECT_TRUE(settled_.empty());
}

// Issue 26 A6: the reconciler listed the record UNSUBMITTED, then its submitter confirmed it and
// exited before its pid was checked. Here the confirmation is held uncommitted while the
// reconciler lists, and committed while it waits for the lock to settle the record.
TEST_F(SubmissionTest, ASubmissionConfirmedAfterTheListIsLeftAlone) {
  record_unsubmitted("confirmed", message_of(dead_pid()));
  {
    const WriteCommittedLater confirmation(
        "UPDATE apps SET state = 'SUBMITTED', msg = '' "
        "WHERE handle = 'local_cwd://default/confirmed'");
    session()->store();
  }
  EXPECT_EQ(session()->store().get("local_cwd://default/confirmed")->state,
            model::AppState::kSubmitted);
  EXPECT_TRUE(settled_.empty()) << settled_[0];
}

// The same for a launch: its launcher cleared the mark and exited after the list.
TEST_F(SubmissionTest, ALaunchFinishedAfterTheListIsNotPartial) {
  int64_t experiment = 0;
  {
    auto store = store::AppStore::open(store::AppStore::default_path());
    experiment = store->create_experiment("sweep", "/w");
    store->begin_launch(experiment, store::LaunchMarker{dead_pid(), now_ns(), 1});
  }
  {
    const WriteCommittedLater finish(
        "UPDATE experiments SET launcher_pid = NULL, launcher_started_at = NULL, "
        "units_expected = NULL, partial_reason = '' WHERE id = " +
        std::to_string(experiment));
    session()->store();
  }
  const auto record = session()->store().experiment(experiment);
  EXPECT_FALSE(record->launch.has_value());
  EXPECT_EQ(record->partial_reason, "");
  EXPECT_TRUE(settled_.empty()) << settled_[0];
}

TEST_F(SubmissionTest, OnlySubmittingMessagesNameASubmitter) {
  EXPECT_EQ(submitter_of(submitting_message()), ::getpid());
  EXPECT_FALSE(submitter_of("exited with code 1").has_value());
}

}  // namespace
}  // namespace sortie::session
