// sortie-store-checkpoint PATH: checkpoints and empties the WAL of the app store at PATH, so
// that the sortie command which started it does not wait for the fsyncs (store_wal.hpp).
#include <sqlite3.h>
#include <unistd.h>

namespace {
// Up to 2 s in all, while the commands of a busy shell loop come and go.
constexpr int kTruncateAttempts = 40;
constexpr useconds_t kTruncateRetryMicroseconds = 50000;
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  // Background work: the commands running meanwhile go first.
  [[maybe_unused]] const int niceness = ::nice(10);
  // The existing store only: one deleted meanwhile stays deleted. Nobody reads our output; the
  // next command's own open reports what is wrong with the store.
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, nullptr);
  if (rc == SQLITE_OK) {
    // Like every connection of the store (store.cpp): the WAL file stays when we close.
    int persist_wal = 1;
    sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist_wal);
    sqlite3_exec(db, "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
    // Copies the WAL into the database with its fsyncs, never blocking a writer.
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    // Everything is in the database now; emptying the WAL only needs a moment of the write lock.
    // Without a busy handler each try gives up rather than make a writer or reader wait, so it
    // is tried again a few times: a command or another helper holding a lock at that moment
    // would otherwise leave a full WAL behind that nothing empties until it refills.
    for (int attempt = 0; attempt < kTruncateAttempts; ++attempt) {
      if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr) !=
          SQLITE_BUSY) {
        break;
      }
      ::usleep(kTruncateRetryMicroseconds);
    }
  }
  sqlite3_close_v2(db);
  return rc == SQLITE_OK ? 0 : 1;
}
