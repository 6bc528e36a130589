// AppStore::open_read_only (docs/store.md, "Readers"): it reads what writers committed, creates
// nothing where no store exists, leaves an older schema to the writers' open, and reads a store
// whose WAL files are gone from a directory it cannot write. Migration from schema version 2.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <sortie/model/error.hpp>
#include <sortie/store/store.hpp>
#include <string>

#include "store_test_support.hpp"

namespace sortie::store {
namespace {

using testing::RawDatabase;
using testing::sample_record;
using testing::ScratchDir;

class ReadOnlyStoreTest : public ::testing::Test {
 protected:
  std::string dir() const { return scratch_.path() + "/state"; }
  std::string path() const { return dir() + "/sortie.db"; }
  ScratchDir scratch_;
};

TEST_F(ReadOnlyStoreTest, ReadsWhatAWriterCommitted) {
  auto writer = AppStore::open(path());
  writer->record_submission(sample_record("a1"));
  const auto reader = AppStore::open_read_only(path());
  ASSERT_NE(reader, nullptr);
  EXPECT_FALSE(reader->is_placeholder());
  ASSERT_EQ(reader->list({}).size(), 1u);
  writer->record_submission(sample_record("a2"));
  EXPECT_EQ(reader->list({}).size(), 2u);  // each read sees the last commit
}

TEST_F(ReadOnlyStoreTest, NoStoreReadsEmptyAndCreatesNothing) {
  const auto reader = AppStore::open_read_only(path());
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->is_placeholder());
  EXPECT_TRUE(reader->list({}).empty());
  EXPECT_TRUE(reader->experiments(0).empty());
  EXPECT_FALSE(std::filesystem::exists(dir()));
}

TEST_F(ReadOnlyStoreTest, AStoreWithoutItsWalFilesReadsFromAReadOnlyDirectory) {
  {
    auto writer = AppStore::open(path());
    writer->record_submission(sample_record("a1"));
  }
  // As a store last closed by a program that checkpoints and removes its WAL files (sqlite3).
  RawDatabase(path()).execute("PRAGMA wal_checkpoint(TRUNCATE)");
  std::filesystem::remove(path() + "-wal");
  std::filesystem::remove(path() + "-shm");
  // Not writable, except for root (the full-disk test, tests/cli/readers_full_disk_test.sh,
  // covers root).
  ::chmod(dir().c_str(), 0500);
  const auto reader = AppStore::open_read_only(path());
  ::chmod(dir().c_str(), 0700);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->list({}).size(), 1u);
}

TEST_F(ReadOnlyStoreTest, LaunchMarksRoundTrip) {
  auto store = AppStore::open(path());
  const int64_t id = store->create_experiment("sweep", "/work");
  EXPECT_FALSE(store->experiment(id)->launch.has_value());
  store->begin_launch(id, LaunchMarker{4242, 1'700'000'000'000'000'000, 20});
  const auto marked = AppStore::open_read_only(path())->experiment(id);
  ASSERT_TRUE(marked->launch.has_value());
  EXPECT_EQ(marked->launch->pid, 4242);
  EXPECT_EQ(marked->launch->process_started_at, 1'700'000'000'000'000'000);
  EXPECT_EQ(marked->launch->units_expected, 20);
  ASSERT_EQ(store->launching_experiments().size(), 1u);
  store->finish_launch(id, "launched 3 of 20 work units; the launch was interrupted");
  const auto finished = store->experiment(id);
  EXPECT_FALSE(finished->launch.has_value());
  EXPECT_EQ(finished->partial_reason, "launched 3 of 20 work units; the launch was interrupted");
  EXPECT_TRUE(store->launching_experiments().empty());
  EXPECT_THROW(store->begin_launch(id + 1, LaunchMarker{1, 1, std::nullopt}), Error);
}

// A store of schema version 2 (before launch marks): the reader leaves it to the writers' open,
// which adds the columns and keeps every experiment.
TEST_F(ReadOnlyStoreTest, SchemaVersionTwoIsMigratedByTheWriterOnly) {
  const int64_t id = AppStore::open(path())->create_experiment("old", "/work");
  {
    RawDatabase raw(path());
    raw.execute(
        std::string(testing::kBackToSchemaVersionFive) +
        "ALTER TABLE experiments DROP COLUMN launcher_pid; "
        "ALTER TABLE experiments DROP COLUMN launcher_started_at; "
        "ALTER TABLE experiments DROP COLUMN units_expected; "
        "ALTER TABLE experiments DROP COLUMN partial_reason; "
        "ALTER TABLE experiments DROP COLUMN notes; "
        "ALTER TABLE experiments DROP COLUMN code_json; DROP TABLE experiment_tags; "
        "ALTER TABLE experiment_jobs DROP COLUMN executable_digest; PRAGMA user_version = 2");
  }
  EXPECT_EQ(AppStore::open_read_only(path()), nullptr);
  EXPECT_EQ(RawDatabase(path()).scalar("PRAGMA user_version"), "2");
  auto store = AppStore::open(path());
  EXPECT_EQ(RawDatabase(path()).scalar("PRAGMA user_version"), "7");
  const auto old = store->experiment(id);
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->title, "old");
  EXPECT_FALSE(old->launch.has_value());
  EXPECT_EQ(old->partial_reason, "");
  ASSERT_NE(AppStore::open_read_only(path()), nullptr);
}

}  // namespace
}  // namespace sortie::store
