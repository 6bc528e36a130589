// Helpers shared by the app store tests: a scratch directory per test, sample records and
// statuses, and direct SQLite access for checks the store API does not offer.
#ifndef SORTIE_TESTS_STORE_STORE_TEST_SUPPORT_HPP
#define SORTIE_TESTS_STORE_STORE_TEST_SUPPORT_HPP

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <sortie/store/store.hpp>
#include <stdexcept>
#include <string>

#include "temp_dir.hpp"

namespace sortie::store::testing {

// A fresh directory under the test binary dir, removed when the test ends.
class ScratchDir : public ::sortie::testing::TempDir {
 public:
  ScratchDir() : ::sortie::testing::TempDir("scratch", SORTIE_TEST_BINARY_DIR) {}
};

inline std::string appdef_json(const std::string& name) {
  return R"({"schema":"sortie.appdef/1","name":")" + name +
         R"(","roles":[{"name":"trainer","num_replicas":2},{"name":"ps","num_replicas":1}]})";
}

// SQL that takes a current store back to schema version 5 (before measurements), for tests that
// write an older store by hand.
inline constexpr const char* kBackToSchemaVersionFive =
    "DROP TABLE measurement_points; DROP TABLE measurement_series; "
    "DROP TABLE measurement_sources; ALTER TABLE apps DROP COLUMN measurements_finished; ";

inline AppRecord sample_record(const std::string& app_id, const std::string& scheduler = "local",
                               const std::string& session = "default", int64_t submitted_at = 0) {
  AppRecord record;
  record.scheduler = scheduler;
  record.session = session;
  record.app_id = app_id;
  record.handle = scheduler + "://" + session + "/" + app_id;
  record.name = "trainer";
  record.state = AppState::kSubmitted;
  record.appdef_json = appdef_json("trainer");
  record.request_json = R"({"cmd":["python","train.py"]})";
  record.cfg_json = R"({"log_dir":"/tmp/logs"})";
  record.submitted_at = submitted_at;
  return record;
}

// A status with `replicas` replicas of role "trainer", all in `state`.
inline AppStatus sample_status(const std::string& app_id, AppState state, int replicas) {
  AppStatus status;
  status.app_id = app_id;
  status.state = state;
  RoleStatus role{"trainer", {}};
  for (int id = 0; id < replicas; ++id) {
    ReplicaStatus replica;
    replica.id = id;
    replica.state = state;
    replica.pid = 1000 + id;
    replica.hostname = "localhost";
    replica.started_at = 1'700'000'000'000'000'000 + id;
    role.replicas.push_back(replica);
  }
  status.roles.push_back(role);
  return status;
}

// A raw connection for what only SQLite can tell (pragmas, integrity).
class RawDatabase {
 public:
  explicit RawDatabase(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      throw std::runtime_error("cannot open " + path);
    }
    sqlite3_busy_timeout(db_, 10'000);
  }
  ~RawDatabase() { sqlite3_close_v2(db_); }
  RawDatabase(const RawDatabase&) = delete;
  RawDatabase& operator=(const RawDatabase&) = delete;

  void execute(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error != nullptr ? error : "?";
      sqlite3_free(error);
      throw std::runtime_error(sql + ": " + message);
    }
  }
  // The first column of the first row, as text ("" when there is no row).
  std::string scalar(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
    }
    std::string value;
    if (sqlite3_step(statement) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
      value = text != nullptr ? text : "";
    }
    sqlite3_finalize(statement);
    return value;
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace sortie::store::testing

#endif  // SORTIE_TESTS_STORE_STORE_TEST_SUPPORT_HPP
