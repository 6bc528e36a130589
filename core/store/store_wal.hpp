// File: core/store/store_wal.hpp (private to sortie_store)
//
// Keeps the WAL short without making a command wait for a checkpoint. Every process that opens
// the store first rebuilds the WAL index by reading back each frame written since the last
// checkpoint (about 4 µs a frame on this machine), so with SQLite's own checkpoints every 1000
// pages a command paid up to 4 ms before its first query; a checkpoint itself costs two fsyncs
// (about 6 ms each on this machine's disk). So a connection whose commits left more than
// kBackgroundCheckpointFrames frames starts sortie-store-checkpoint as it closes, which
// checkpoints and empties the WAL in a process of its own. SQLite's inline checkpoint stays as
// the fallback for when that helper is missing (docs/store.md, "Durability").
#ifndef SORTIE_CORE_SRC_STORE_WAL_HPP
#define SORTIE_CORE_SRC_STORE_WAL_HPP

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace sortie::core::store_detail {

// About two `sortie run --wait` commands' worth of commits.
constexpr int64_t kBackgroundCheckpointFrames = 64;
// SQLite's default autocheckpoint, which a WAL hook replaces.
constexpr int64_t kInlineCheckpointFrames = 1000;

// Keeps `*frames` at the WAL's size in frames after each commit of this connection.
void watch_wal(sqlite3* db, int64_t* frames);

// Starts sortie-store-checkpoint for the store at `path`, detached, without waiting for it;
// does nothing when the helper cannot be started (the inline checkpoint then bounds the WAL).
void checkpoint_in_background(const std::string& path);

// What sortie-store-checkpoint does: opens the existing store at `path` (creating nothing: a
// store deleted meanwhile stays deleted), copies the WAL into the database (fsyncs included),
// then empties it unless that would make another connection wait. False when it could not open.
bool checkpoint_store_file(const std::string& path);

}  // namespace sortie::core::store_detail

#endif  // SORTIE_CORE_SRC_STORE_WAL_HPP
