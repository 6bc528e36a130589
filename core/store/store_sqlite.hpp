// File: core/store/store_sqlite.hpp (private to sortie_store)
//
// A thin RAII layer over the SQLite C API for the app store: prepared statements with bound
// parameters, write transactions that wait out other writers, and one mapping from SQLite result
// codes to sortie::Error whose messages name the store file and what to do.
#ifndef SORTIE_STORE_STORE_SQLITE_HPP
#define SORTIE_STORE_STORE_SQLITE_HPP

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace sortie::store::detail {

// Throws the Error that `rc` (a failed SQLite result) means for the store at `path`; `action`
// says what was being done ("recording app x"), for the message.
[[noreturn]] void throw_sqlite_error(sqlite3* db, int rc, const std::string& path,
                                     std::string_view action);

// Runs SQL text without results (pragmas, DDL); throws on failure.
void execute(sqlite3* db, const std::string& path, const char* sql, std::string_view action);

class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, std::string_view sql, std::string_view action);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, const std::optional<int64_t>& value);  // nullopt binds NULL
  Statement& bind_real(int index, double value);
  // True when a row is ready, false when the statement is done.
  bool step();
  // Steps a statement that returns no rows.
  void run();
  // Makes the statement ready to run again with new parameters.
  void reset();

  int64_t integer(int column) const;
  std::optional<int64_t> optional_integer(int column) const;
  std::string text(int column) const;
  double real(int column) const;

 private:
  sqlite3* db_;
  const std::string& path_;
  std::string action_;
  sqlite3_stmt* statement_ = nullptr;
};

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT, so a write never interleaves with another
// process's. Waits for other writers (busy_timeout, then retries) and rolls back when `body` or
// the commit throws.
void write_transaction(sqlite3* db, const std::string& path, std::string_view action,
                       const std::function<void()>& body);

// Runs `body` inside BEGIN ... COMMIT so that its reads see one snapshot, whatever other
// processes commit meanwhile.
void read_transaction(sqlite3* db, const std::string& path, std::string_view action,
                      const std::function<void()>& body);

// Nanoseconds since the Unix epoch, the store's time unit.
int64_t now_ns();

// How long one call waits for SQLite's lock before its own retry loop gives up.
inline constexpr int kBusyTimeoutMs = 10'000;

}  // namespace sortie::store::detail

#endif  // SORTIE_STORE_STORE_SQLITE_HPP
