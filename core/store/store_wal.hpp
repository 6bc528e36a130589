// File: core/store/store_wal.hpp (private to sortie_store)
//
// Keeps the WAL short without making a command wait for a checkpoint. Every process that opens
// the store first reads back each WAL frame written since the last checkpoint, up to 1000 with
// SQLite's own checkpoints, and a checkpoint costs two fsyncs (0.1 ms to 6 ms each on this
// machine's disk, depending on its load). So a connection whose commits left
// kBackgroundCheckpointFrames or more starts sortie-store-checkpoint as it closes, which
// checkpoints and empties the WAL in a process of its own. SQLite's inline checkpoint stays as
// the fallback for when that helper is missing (docs/store.md, "Durability").
#ifndef SORTIE_STORE_STORE_WAL_HPP
#define SORTIE_STORE_STORE_WAL_HPP

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace sortie::store::detail {

// About eight `sortie run --wait` commands' worth of commits (1 MiB): each open reads back at
// most that, and the helper starts once every few commands.
constexpr int64_t kBackgroundCheckpointFrames = 256;
// SQLite's default autocheckpoint, which a WAL hook replaces.
constexpr int64_t kInlineCheckpointFrames = 1000;

// Keeps `*frames` at the WAL's size in frames after each commit of this connection.
void watch_wal(sqlite3* db, int64_t* frames);

// Starts sortie-store-checkpoint for the store at `path`, detached, without waiting for it;
// does nothing when the helper cannot be started (the inline checkpoint then bounds the WAL).
void checkpoint_in_background(const std::string& path);

}  // namespace sortie::store::detail

#endif  // SORTIE_STORE_STORE_WAL_HPP
