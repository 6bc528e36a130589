// File: core/store/store_schema.hpp (private to sortie_store)
//
// The app store's schema and its migrations. The version lives in PRAGMA user_version and the
// file is marked as sortie's with PRAGMA application_id, so a foreign SQLite file is refused
// instead of being written into.
#ifndef SORTIE_STORE_STORE_SCHEMA_HPP
#define SORTIE_STORE_STORE_SCHEMA_HPP

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace sortie::store::detail {

inline constexpr int kStoreSchemaVersion = 7;
inline constexpr int32_t kStoreApplicationId = 0x536f7274;  // "Sort"

// True when the database is sortie's at kStoreSchemaVersion; false otherwise (older, empty, being
// created, foreign or newer: migrate_schema tells them apart under the write lock). Writes nothing.
bool schema_is_current(sqlite3* db, const std::string& path);

// Brings the database to kStoreSchemaVersion. When it already is there (every open but the
// first), this is two pragma reads and no transaction. Throws Error for a foreign SQLite file or
// one written by a newer sortie.
void migrate_schema(sqlite3* db, const std::string& path);

}  // namespace sortie::store::detail

#endif  // SORTIE_STORE_STORE_SCHEMA_HPP
