#include "store_sqlite.hpp"

#include <chrono>
#include <filesystem>
#include <sortie/model/error.hpp>
#include <thread>

namespace sortie::store::detail {
namespace {

// SQLite waits kBusyTimeoutMs in its busy handler, but a few lock conflicts skip the handler
// (e.g. while another connection switches the file to WAL or recovers it after a crash). Those
// are retried here; a minute in all is far beyond any sortie transaction, so running out means a
// hung process holds the lock.
constexpr auto kLockDeadline = std::chrono::seconds(60);
constexpr auto kRetryPause = std::chrono::milliseconds(10);

bool is_busy(int rc) { return (rc & 0xff) == SQLITE_BUSY; }

// Calls `attempt` (which returns an SQLite result code) until it is not SQLITE_BUSY or the
// deadline passes; returns the last result.
int retry_while_busy(const std::function<int()>& attempt) {
  const auto deadline = std::chrono::steady_clock::now() + kLockDeadline;
  int rc = attempt();
  while (is_busy(rc) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kRetryPause);
    rc = attempt();
  }
  return rc;
}

std::string sqlite_message(sqlite3* db, int rc) {
  if (db != nullptr && sqlite3_extended_errcode(db) == rc) return sqlite3_errmsg(db);
  return sqlite3_errstr(rc);
}

}  // namespace

void throw_sqlite_error(sqlite3* db, int rc, const std::string& path, std::string_view action) {
  const std::string detail = sqlite_message(db, rc);
  const std::string doing(action);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  switch (rc & 0xff) {
    case SQLITE_FULL:
      throw Error::resource_exhausted("disk full writing " + path + " (" + doing +
                                      "): free space and retry; nothing recorded "
                                      "before was lost");
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      throw Error::permission_denied("cannot write the app store " + path + " (" + doing +
                                     "): " + detail + "; make " + dir +
                                     " writable or set SORTIE_STATE_DIR to a writable "
                                     "directory");
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      throw Error::failed_precondition(
          path + " is not a sortie store (" + detail +
          "): move it aside and sortie "
          "creates a new one, or set SORTIE_STATE_DIR to another directory");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw Error::unavailable("the app store " + path + " stayed locked by another process (" +
                               doing +
                               "): retry; if it persists, look for a hung sortie process using it");
    case SQLITE_NOMEM:
      throw Error::resource_exhausted("out of memory using the app store " + path + " (" + doing +
                                      ")");
    case SQLITE_CONSTRAINT:
      throw Error::invalid_argument(doing + " in " + path + ": " + detail);
    case SQLITE_IOERR:
      throw Error::unavailable("I/O error on the app store " + path + " (" + doing +
                               "): " + detail + "; check the disk and retry");
    default:
      throw Error::internal("SQLite failed on the app store " + path + " (" + doing +
                            "): " + detail);
  }
}

void execute(sqlite3* db, const std::string& path, const char* sql, std::string_view action) {
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw_sqlite_error(db, sqlite3_extended_errcode(db), path, action);
}

Statement::Statement(sqlite3* db, const std::string& path, std::string_view sql,
                     std::string_view action)
    : db_(db), path_(path), action_(action) {
  const int rc =
      sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement_, nullptr);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, sqlite3_extended_errcode(db_), path_, action_);
}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement& Statement::bind(int index, std::string_view text) {
  const int rc = sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                                     SQLITE_UTF8);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, rc, path_, action_);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(statement_, index, value);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, rc, path_, action_);
  return *this;
}

Statement& Statement::bind(int index, const std::optional<int64_t>& value) {
  if (value) return bind(index, *value);
  const int rc = sqlite3_bind_null(statement_, index);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, rc, path_, action_);
  return *this;
}

Statement& Statement::bind_real(int index, double value) {
  const int rc = sqlite3_bind_double(statement_, index, value);
  if (rc != SQLITE_OK) throw_sqlite_error(db_, rc, path_, action_);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(statement_);
  // Outside a transaction a busy statement did nothing and may run again; inside one, the
  // transaction's own lock already rules the conflict out or the whole transaction must restart.
  if (is_busy(rc) && sqlite3_get_autocommit(db_) != 0) {
    rc = retry_while_busy([&] {
      sqlite3_reset(statement_);
      return sqlite3_step(statement_);
    });
  }
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite_error(db_, sqlite3_extended_errcode(db_), path_, action_);
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

int64_t Statement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

std::optional<int64_t> Statement::optional_integer(int column) const {
  if (sqlite3_column_type(statement_, column) == SQLITE_NULL) return std::nullopt;
  return integer(column);
}

std::string Statement::text(int column) const {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
  if (data == nullptr) return {};
  return std::string(data, static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
}

double Statement::real(int column) const { return sqlite3_column_double(statement_, column); }

void write_transaction(sqlite3* db, const std::string& path, std::string_view action,
                       const std::function<void()>& body) {
  int rc = retry_while_busy(
      [&] { return sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr); });
  if (rc != SQLITE_OK) throw_sqlite_error(db, sqlite3_extended_errcode(db), path, action);
  try {
    body();
    // A busy COMMIT leaves the transaction open, so it may simply be retried.
    rc = retry_while_busy([&] { return sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr); });
    if (rc != SQLITE_OK) throw_sqlite_error(db, sqlite3_extended_errcode(db), path, action);
  } catch (...) {
    // SQLite may already have rolled back (e.g. after SQLITE_FULL); a second ROLLBACK would fail.
    if (sqlite3_get_autocommit(db) == 0) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    throw;
  }
}

void read_transaction(sqlite3* db, const std::string& path, std::string_view action,
                      const std::function<void()>& body) {
  execute(db, path, "BEGIN", action);
  try {
    body();
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  execute(db, path, "COMMIT", action);
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace sortie::store::detail
