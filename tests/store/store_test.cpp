// Tests of sortie/store/store.hpp within one process: round trips, filters, events, errors,
// schema marks and the default location. Multi-process and failure tests:
// store_durability_test.cpp.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <sortie/model/error.hpp>
#include <sortie/store/store.hpp>
#include <string>

#include "store_test_support.hpp"

namespace sortie::store {
namespace {

using testing::RawDatabase;
using testing::sample_record;
using testing::sample_status;
using testing::ScratchDir;

class AppStoreTest : public ::testing::Test {
 protected:
  std::string path() const { return scratch_.path() + "/state/sortie/sortie.db"; }
  ScratchDir scratch_;
};

TEST_F(AppStoreTest, SubmissionRoundTripsEveryField) {
  auto store = AppStore::open(path());
  AppRecord record = sample_record("trainer-abc", "k8s", "team-a", 1'700'000'000'123'456'789);
  record.num_restarts = 2;
  record.msg = "queued behind 3 jobs";
  record.updated_at = 1'700'000'000'999'000'000;
  store->record_submission(record);

  const std::optional<AppRecord> read = store->get(record.handle);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->handle, "k8s://team-a/trainer-abc");
  EXPECT_EQ(read->scheduler, "k8s");
  EXPECT_EQ(read->session, "team-a");
  EXPECT_EQ(read->app_id, "trainer-abc");
  EXPECT_EQ(read->name, "trainer");
  EXPECT_EQ(read->state, AppState::kSubmitted);
  EXPECT_EQ(read->num_restarts, 2);
  EXPECT_EQ(read->msg, "queued behind 3 jobs");
  EXPECT_EQ(read->appdef_json, record.appdef_json);
  EXPECT_EQ(read->request_json, R"({"cmd":["python","train.py"]})");
  EXPECT_EQ(read->cfg_json, R"({"log_dir":"/tmp/logs"})");
  EXPECT_EQ(read->submitted_at, 1'700'000'000'123'456'789);
  EXPECT_EQ(read->updated_at, 1'700'000'000'999'000'000);
}

TEST_F(AppStoreTest, SubmissionWithoutTimesIsStampedNow) {
  auto store = AppStore::open(path());
  store->record_submission(sample_record("a1"));
  const AppRecord read = *store->get("local://default/a1");
  EXPECT_GT(read.submitted_at, 1'600'000'000'000'000'000);
  EXPECT_EQ(read.updated_at, read.submitted_at);
}

TEST_F(AppStoreTest, StatusBeforeAnyReportListsTheAppDefRoles) {
  auto store = AppStore::open(path());
  store->record_submission(sample_record("a1"));
  const std::optional<AppStatus> status = store->last_status("local://default/a1");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->app_id, "a1");
  EXPECT_EQ(status->state, AppState::kSubmitted);
  ASSERT_EQ(status->roles.size(), 2u);
  EXPECT_EQ(status->roles[0].role, "trainer");
  EXPECT_EQ(status->roles[1].role, "ps");
  EXPECT_TRUE(status->roles[0].replicas.empty());
}

TEST_F(AppStoreTest, StatusRoundTripsEveryField) {
  auto store = AppStore::open(path());
  store->record_submission(sample_record("a1", "local", "default", 1'000));
  AppStatus status;
  status.app_id = "a1";
  status.state = AppState::kFailed;
  status.num_restarts = 3;
  status.msg = "trainer/1 exited 2";
  status.ui_url = "file:///tmp/a1";
  status.structured_error_msg = R"({"message":"boom"})";
  ReplicaStatus finished;
  finished.id = 1;
  finished.state = AppState::kFailed;
  finished.pid = 4242;
  finished.exit_code = 2;
  finished.hostname = "node-7";
  finished.restarts = 3;
  finished.started_at = 1'700'000'000'000'000'001;
  finished.finished_at = 1'700'000'000'500'000'000;
  finished.msg = "Traceback ...";
  ReplicaStatus unknown;  // every optional member absent
  unknown.id = 0;
  unknown.state = AppState::kUnknown;
  status.roles = {RoleStatus{"trainer", {unknown, finished}}, RoleStatus{"ps", {}},
                  RoleStatus{"evaluator", {finished}}};
  store->record_status("local://default/a1", status);

  const AppStatus read = *store->last_status("local://default/a1");
  EXPECT_EQ(read.app_id, "a1");
  EXPECT_EQ(read.state, AppState::kFailed);
  EXPECT_EQ(read.num_restarts, 3);
  EXPECT_EQ(read.msg, "trainer/1 exited 2");
  EXPECT_EQ(read.ui_url, "file:///tmp/a1");
  EXPECT_EQ(read.structured_error_msg, R"({"message":"boom"})");
  // AppDef roles first, in AppDef order; then roles only the scheduler reported.
  ASSERT_EQ(read.roles.size(), 3u);
  EXPECT_EQ(read.roles[0].role, "trainer");
  EXPECT_EQ(read.roles[1].role, "ps");
  EXPECT_EQ(read.roles[2].role, "evaluator");
  EXPECT_TRUE(read.roles[1].replicas.empty());
  ASSERT_EQ(read.roles[0].replicas.size(), 2u);
  const ReplicaStatus& absent = read.roles[0].replicas[0];
  EXPECT_EQ(absent.id, 0);
  EXPECT_EQ(absent.state, AppState::kUnknown);
  EXPECT_FALSE(absent.pid.has_value());
  EXPECT_FALSE(absent.exit_code.has_value());
  EXPECT_FALSE(absent.started_at.has_value());
  EXPECT_FALSE(absent.finished_at.has_value());
  for (const ReplicaStatus* present : {&read.roles[0].replicas[1], &read.roles[2].replicas[0]}) {
    EXPECT_EQ(present->id, 1);
    EXPECT_EQ(present->state, AppState::kFailed);
    EXPECT_EQ(present->pid, std::optional<int64_t>(4242));
    EXPECT_EQ(present->exit_code, std::optional<int>(2));
    EXPECT_EQ(present->hostname, "node-7");
    EXPECT_EQ(present->restarts, 3);
    EXPECT_EQ(present->started_at, std::optional<int64_t>(1'700'000'000'000'000'001));
    EXPECT_EQ(present->finished_at, std::optional<int64_t>(1'700'000'000'500'000'000));
    EXPECT_EQ(present->msg, "Traceback ...");
  }
  const AppRecord record = *store->get("local://default/a1");
  EXPECT_EQ(record.state, AppState::kFailed);
  EXPECT_EQ(record.num_restarts, 3);
  EXPECT_EQ(record.msg, "trainer/1 exited 2");
  EXPECT_GT(record.updated_at, record.submitted_at);
}

// `sortie list` records the fresh states of every app it refreshed at once (issue 34); an app
// forgotten meanwhile does not stop the others being recorded, and one whose state another
// process recorded since the list read it keeps that later state.
TEST_F(AppStoreTest, StatusesOfManyAppsAreRecordedTogetherUnlessRecordedSince) {
  auto store = AppStore::open(path());
  for (const char* app : {"a1", "a2", "a3"}) store->record_submission(sample_record(app));
  store->record_status("local://default/a3", sample_status("a3", AppState::kSucceeded, 1));
  store->record_statuses(
      {{"local://default/a1", AppState::kSubmitted, sample_status("a1", AppState::kSucceeded, 1)},
       {"local://default/gone", AppState::kSubmitted, sample_status("gone", AppState::kFailed, 1)},
       {"local://default/a2", AppState::kSubmitted, sample_status("a2", AppState::kFailed, 2)},
       {"local://default/a3", AppState::kSubmitted, sample_status("a3", AppState::kRunning, 1)}});
  EXPECT_EQ(store->get("local://default/a1")->state, AppState::kSucceeded);
  EXPECT_EQ(store->get("local://default/a2")->state, AppState::kFailed);
  EXPECT_EQ(store->last_status("local://default/a2")->roles[0].replicas.size(), 2u);
  EXPECT_FALSE(store->get("local://default/gone").has_value());
  EXPECT_EQ(store->get("local://default/a3")->state, AppState::kSucceeded);
}

TEST_F(AppStoreTest, StatusReplacesEarlierReplicas) {
  auto store = AppStore::open(path());
  store->record_submission(sample_record("a1"));
  store->record_status("local://default/a1", sample_status("a1", AppState::kRunning, 3));
  store->record_status("local://default/a1", sample_status("a1", AppState::kRunning, 1));
  const AppStatus read = *store->last_status("local://default/a1");
  ASSERT_EQ(read.roles[0].replicas.size(), 1u);
  EXPECT_EQ(read.roles[0].replicas[0].pid, std::optional<int64_t>(1000));
}

TEST_F(AppStoreTest, EventsAfterAnIdResumeAcrossAppsWithoutGapsOrDuplicates) {
  auto store = AppStore::open(path());
  store->record_submission(sample_record("a1"));
  store->record_submission(sample_record("b2"));
  store->add_event("local://default/a1", "note", "one");
  store->add_event("local://default/b2", "note", "two");
  const std::vector<AppEvent> all = store->events_after(0, 100);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[1].handle, "local://default/b2");
  EXPECT_EQ(all[3].detail, "two");
  const std::vector<AppEvent> first = store->events_after(0, 2);
  ASSERT_EQ(first.size(), 2u);
  store->add_event("local://default/a1", "note", "three");  // while the reader is away
  std::vector<AppEvent> resumed = store->events_after(first.back().id, 100);
  ASSERT_EQ(resumed.size(), 3u);
  EXPECT_EQ(resumed[0].id, all[2].id);
  EXPECT_EQ(resumed[2].detail, "three");
  EXPECT_TRUE(store->events_after(resumed.back().id, 100).empty());
}

TEST_F(AppStoreTest, StateEventOnlyWhenTheStateChanges) {
  auto store = AppStore::open(path());
  const std::string handle = "local://default/a1";
  store->record_submission(sample_record("a1"));
  store->record_status(handle, sample_status("a1", AppState::kRunning, 1));
  store->record_status(handle, sample_status("a1", AppState::kRunning, 2));
  store->add_event(handle, "cancel_requested", R"({"by":"alice"})");
  store->record_status(handle, sample_status("a1", AppState::kCancelled, 2));

  const std::vector<AppEvent> events = store->events(handle);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].kind, "submitted");
  EXPECT_EQ(events[0].detail, "SUBMITTED");
  EXPECT_EQ(events[1].kind, "state");
  EXPECT_EQ(events[1].detail, "RUNNING");
  EXPECT_EQ(events[2].kind, "cancel_requested");
  EXPECT_EQ(events[2].detail, R"({"by":"alice"})");
  EXPECT_EQ(events[3].kind, "state");
  EXPECT_EQ(events[3].detail, "CANCELLED");
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].handle, handle);
    if (i > 0) {
      EXPECT_GT(events[i].id, events[i - 1].id);
    }
  }
  EXPECT_EQ(events[0].at, store->get(handle)->submitted_at);
}

TEST_F(AppStoreTest, ListsNewestFirstWithFilters) {
  auto store = AppStore::open(path());
  store->record_submission(sample_record("old", "local", "s1", 100));
  store->record_submission(sample_record("mid", "k8s", "s1", 200));
  store->record_submission(sample_record("new", "local", "s2", 300));
  store->record_submission(sample_record("tie", "local", "s2", 300));  // same time: later insert
  store->record_status("local://s2/new", sample_status("new", AppState::kSucceeded, 1));

  auto ids = [&](const ListFilter& filter) {
    std::vector<std::string> result;
    for (const AppRecord& record : store->list(filter)) result.push_back(record.app_id);
    return result;
  };
  auto filter = [](std::optional<std::string> scheduler, std::optional<std::string> session,
                   bool active_only, int limit) {
    ListFilter result;
    result.scheduler = std::move(scheduler);
    result.session = std::move(session);
    result.active_only = active_only;
    result.limit = limit;
    return result;
  };
  using Ids = std::vector<std::string>;
  EXPECT_EQ(ids({}), (Ids{"tie", "new", "mid", "old"}));
  EXPECT_EQ(ids(filter("local", {}, false, 0)), (Ids{"tie", "new", "old"}));
  EXPECT_EQ(ids(filter({}, "s1", false, 0)), (Ids{"mid", "old"}));
  EXPECT_EQ(ids(filter("local", "s2", false, 0)), (Ids{"tie", "new"}));
  EXPECT_EQ(ids(filter({}, {}, true, 0)), (Ids{"tie", "mid", "old"}));
  EXPECT_EQ(ids(filter({}, {}, false, 2)), (Ids{"tie", "new"}));
  EXPECT_EQ(ids(filter("local", {}, true, 1)), (Ids{"tie"}));
  EXPECT_EQ(ids(filter("slurm", {}, false, 0)), Ids{});
  // The records are whole, not just ids.
  EXPECT_EQ(store->list(filter({}, "s1", false, 0)).front().cfg_json, R"({"log_dir":"/tmp/logs"})");
}

TEST_F(AppStoreTest, UnknownHandle) {
  auto store = AppStore::open(path());
  const std::string handle = "local://default/nope";
  EXPECT_FALSE(store->get(handle).has_value());
  EXPECT_FALSE(store->last_status(handle).has_value());
  EXPECT_TRUE(store->events(handle).empty());
  try {
    store->record_status(handle, sample_status("nope", AppState::kRunning, 1));
    FAIL() << "record_status accepted an unknown handle";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), SORTIE_NOT_FOUND);
    EXPECT_NE(std::string(error.what()).find(handle), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(path()), std::string::npos) << error.what();
  }
  try {
    store->add_event(handle, "note", "");
    FAIL() << "add_event accepted an unknown handle";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), SORTIE_NOT_FOUND);
  }
  EXPECT_TRUE(store->list({}).empty());
}

TEST_F(AppStoreTest, DuplicateSubmissionIsRefused) {
  auto store = AppStore::open(path());
  store->record_submission(sample_record("a1"));
  AppRecord again = sample_record("a1");
  again.msg = "second";
  try {
    store->record_submission(again);
    FAIL() << "a second submission of the same handle was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), SORTIE_ALREADY_EXISTS);
    EXPECT_NE(std::string(error.what()).find("local://default/a1"), std::string::npos);
  }
  EXPECT_EQ(store->get("local://default/a1")->msg, "");
  EXPECT_EQ(store->events("local://default/a1").size(), 1u);
}

TEST_F(AppStoreTest, MalformedAppDefIsRefusedNamingTheField) {
  auto store = AppStore::open(path());
  const std::pair<std::string, std::string> cases[] = {
      {"{not json", "not JSON"},
      {"[]", "must be a JSON object"},
      {R"({"roles":{}})", "roles must be an array"},
      {R"({"roles":[{"name":"a"},{"num_replicas":2}]})", "roles[1].name"},
      {R"({"roles":[{"name":"a","num_replicas":"2"}]})", "roles[0].num_replicas"},
      {R"({"roles":[{"name":"a"},{"name":"a"}]})", "role names must be unique"},
  };
  for (const auto& [json, expected] : cases) {
    AppRecord record = sample_record("bad");
    record.appdef_json = json;
    try {
      store->record_submission(record);
      ADD_FAILURE() << "accepted appdef_json " << json;
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), SORTIE_INVALID_ARGUMENT) << json;
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("local://default/bad"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_FALSE(store->get("local://default/bad").has_value());
}

TEST_F(AppStoreTest, FailedStatusWriteKeepsThePreviousStatus) {
  auto store = AppStore::open(path());
  const std::string handle = "local://default/a1";
  store->record_submission(sample_record("a1"));
  store->record_status(handle, sample_status("a1", AppState::kRunning, 2));
  AppStatus duplicated = sample_status("a1", AppState::kFailed, 2);
  duplicated.roles[0].replicas[1].id = 0;
  try {
    store->record_status(handle, duplicated);
    FAIL() << "a status with a repeated replica id was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), SORTIE_INVALID_ARGUMENT);
    EXPECT_NE(std::string(error.what()).find("replica ids must be unique"), std::string::npos)
        << error.what();
  }
  const AppStatus read = *store->last_status(handle);
  EXPECT_EQ(read.state, AppState::kRunning);
  EXPECT_EQ(read.roles[0].replicas.size(), 2u);
  EXPECT_EQ(store->events(handle).size(), 2u);
}

// A reconciler lists a record UNSUBMITTED; before it settles, the submitter confirms it (or
// another reconciler settles it): the settling writes nothing over that.
TEST_F(AppStoreTest, SettlingASubmissionWritesOnlyOverTheRecordAsListed) {
  auto store = AppStore::open(path());
  AppRecord listed = sample_record("a1");
  listed.state = AppState::kUnsubmitted;
  listed.msg = "submitting (sortie pid 42)";
  store->record_submission(listed);
  store->record_status(listed.handle, sample_status("a1", AppState::kSubmitted, 0));
  const AppStatus failed = sample_status("a1", AppState::kFailed, 0);
  EXPECT_FALSE(store->settle_submission(listed, failed, /*never_scheduled=*/false));
  EXPECT_EQ(store->get(listed.handle)->state, AppState::kSubmitted);

  AppRecord other = listed;
  other.app_id = "a2";
  other.handle = "local://default/a2";
  store->record_submission(other);
  AppRecord listed_earlier = other;
  listed_earlier.msg = "submitting (sortie pid 41)";  // the same handle, another submission
  EXPECT_FALSE(store->settle_submission(listed_earlier, failed, false));
  EXPECT_TRUE(store->settle_submission(other, failed, false));
  EXPECT_EQ(store->get(other.handle)->state, AppState::kFailed);
  EXPECT_FALSE(store->settle_submission(other, failed, false));  // settled once only
  const std::vector<AppEvent> events = store->events(other.handle);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].detail, "FAILED");
  EXPECT_FALSE(store->settle_submission(sample_record("unknown"), failed, false));
}

TEST_F(AppStoreTest, SecondConnectionSeesTheFirstsWrites) {
  auto writer = AppStore::open(path());
  auto reader = AppStore::open(path());
  writer->record_submission(sample_record("a1"));
  ASSERT_TRUE(reader->get("local://default/a1").has_value());
  writer->record_status("local://default/a1", sample_status("a1", AppState::kRunning, 1));
  EXPECT_EQ(reader->last_status("local://default/a1")->state, AppState::kRunning);
  reader->add_event("local://default/a1", "note", "from the reader");
  EXPECT_EQ(writer->events("local://default/a1").back().detail, "from the reader");
  writer.reset();
  reader.reset();
  EXPECT_EQ(AppStore::open(path())->list({}).size(), 1u);
}

TEST_F(AppStoreTest, SchemaIsVersionedAndInWalMode) {
  AppStore::open(path());
  RawDatabase raw(path());
  EXPECT_EQ(raw.scalar("PRAGMA user_version"), "7");
  EXPECT_EQ(raw.scalar("PRAGMA application_id"), std::to_string(0x536f7274));
  EXPECT_EQ(raw.scalar("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
                       "('apps', 'roles', 'replicas', 'events')"),
            "4");
  EXPECT_EQ(raw.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND "
                       "name IN ('apps_by_scheduler', 'apps_by_session', 'apps_by_state', "
                       "'events_by_handle')"),
            "4");
}

TEST_F(AppStoreTest, ReopeningKeepsTheSchemaAndData) {
  AppStore::open(path())->record_submission(sample_record("a1"));
  RawDatabase raw(path());
  const std::string tables = raw.scalar("SELECT group_concat(sql) FROM sqlite_schema");
  AppStore::open(path());
  EXPECT_EQ(raw.scalar("SELECT group_concat(sql) FROM sqlite_schema"), tables);
  EXPECT_EQ(raw.scalar("SELECT count(*) FROM apps"), "1");
}

TEST_F(AppStoreTest, StoreOfANewerSortieIsRefused) {
  AppStore::open(path());
  RawDatabase(path()).execute("PRAGMA user_version = 99");
  try {
    AppStore::open(path());
    FAIL() << "opened a store of schema version 99";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), SORTIE_FAILED_PRECONDITION);
    EXPECT_NE(std::string(error.what()).find("newer sortie"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(path()), std::string::npos) << error.what();
  }
}

TEST_F(AppStoreTest, ForeignSqliteDatabaseIsRefusedUntouched) {
  std::filesystem::create_directories(std::filesystem::path(path()).parent_path());
  RawDatabase(path()).execute("CREATE TABLE photos (id INTEGER)");
  try {
    AppStore::open(path());
    FAIL() << "opened another program's database";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), SORTIE_FAILED_PRECONDITION);
    EXPECT_NE(std::string(error.what()).find("is not a sortie store"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(RawDatabase(path()).scalar("SELECT count(*) FROM sqlite_schema"), "1");
}

TEST_F(AppStoreTest, CorruptFileIsRefused) {
  std::filesystem::create_directories(std::filesystem::path(path()).parent_path());
  std::ofstream(path()) << std::string(8192, 'x');
  try {
    AppStore::open(path());
    FAIL() << "opened a file that is not a database";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), SORTIE_FAILED_PRECONDITION);
    EXPECT_NE(std::string(error.what()).find(path() + " is not a sortie store"), std::string::npos)
        << error.what();
  }
}

TEST_F(AppStoreTest, CreatesMissingParentDirectoriesPrivate) {
  AppStore::open(path());
  for (const auto& dir : {scratch_.path() + "/state", scratch_.path() + "/state/sortie"}) {
    struct stat info {};
    ASSERT_EQ(::stat(dir.c_str(), &info), 0) << dir;
    EXPECT_EQ(info.st_mode & 0777, 0700u) << dir;
  }
}

// Restores one environment variable when the test ends.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(AppStoreDefaultPathTest, FollowsSortieStateDirThenXdgThenHome) {
  ScopedEnv home("HOME", "/home/alice");
  {
    ScopedEnv state("SORTIE_STATE_DIR", "/srv/sortie");
    ScopedEnv xdg("XDG_STATE_HOME", "/xdg");
    EXPECT_EQ(AppStore::default_path(), "/srv/sortie/sortie.db");
  }
  ScopedEnv no_state("SORTIE_STATE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_STATE_HOME", "/xdg");
    EXPECT_EQ(AppStore::default_path(), "/xdg/sortie/sortie.db");
  }
  {
    ScopedEnv relative("XDG_STATE_HOME", "relative/dir");  // invalid per XDG: ignored
    EXPECT_EQ(AppStore::default_path(), "/home/alice/.local/state/sortie/sortie.db");
  }
  {
    ScopedEnv empty("SORTIE_STATE_DIR", "");
    ScopedEnv xdg("XDG_STATE_HOME", nullptr);
    EXPECT_EQ(AppStore::default_path(), "/home/alice/.local/state/sortie/sortie.db");
  }
}

}  // namespace
}  // namespace sortie::store
