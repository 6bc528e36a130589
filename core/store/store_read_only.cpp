// AppStore::open_read_only: the readers' connection (docs/store.md, "Readers"). It never creates
// the store, switches its journal, migrates or writes, so a reader works on a full disk, in a
// read-only directory and before anything was recorded.
#include <sys/stat.h>

#include <cerrno>
#include <sortie/model/error.hpp>
#include <sortie/store/store.hpp>

#include "store_schema.hpp"
#include "store_sqlite.hpp"

namespace sortie::store {
namespace {

using Connection = std::unique_ptr<sqlite3, int (*)(sqlite3*)>;

Connection connect(const std::string& filename, int flags, const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(filename.c_str(), &raw, flags | SQLITE_OPEN_FULLMUTEX, nullptr);
  // sqlite3_open_v2 returns a handle to close even when it fails.
  Connection db(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) detail::throw_sqlite_error(db.get(), rc, path, "opening to read");
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), detail::kBusyTimeoutMs);
  return db;
}

bool file_missing(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) != 0 && errno == ENOENT;
}

// A WAL reader needs the -shm (and -wal) files; SQLite creates them when they are missing,
// which fails on a full disk. Without a -wal holding commits the database file alone holds every
// commit, so it can be read as immutable: no lock, no -shm, nothing created.
bool wal_is_empty(const std::string& path) {
  struct stat info {};
  return ::stat((path + "-wal").c_str(), &info) != 0 || info.st_size == 0;
}

// True when the connection reads the file; false when SQLite could not set up its WAL index.
bool can_read(sqlite3* db) {
  const int rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) return true;
  const int primary = rc & 0xff;
  return primary != SQLITE_IOERR && primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY;
}

// SQLite's URI form of `path` ('%', '?' and '#' escaped), for the immutable parameter.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789abcdef";
      uri += '%';
      uri += kHex[static_cast<unsigned char>(c) >> 4];
      uri += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

std::unique_ptr<AppStore> AppStore::open_read_only(const std::string& path) {
  if (file_missing(path)) {
    // Nothing recorded yet: an empty store in memory answers, and nothing is created on disk.
    Connection empty = connect(":memory:", SQLITE_OPEN_READWRITE, path);
    detail::migrate_schema(empty.get(), path);
    std::unique_ptr<AppStore> store(new AppStore(empty.release(), path));
    store->placeholder_ = true;
    return store;
  }
  Connection db = connect(path, SQLITE_OPEN_READONLY, path);
  if (!can_read(db.get()) && wal_is_empty(path)) {
    db = connect(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path);
  }
  if (!detail::schema_is_current(db.get(), path)) return nullptr;
  return std::unique_ptr<AppStore>(new AppStore(db.release(), path));
}

}  // namespace sortie::store
