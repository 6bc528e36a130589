// The store keeps the last status a scheduler reported for each app, as a cache for `list` and
// for apps whose scheduler later forgets them. Readers (status, log, wait, list) refresh it, but
// never fail because of it: a full disk or read-only store still answers (finding F5).
#ifndef SORTIE_SESSION_STATUS_CACHE_HPP
#define SORTIE_SESSION_STATUS_CACHE_HPP

#include <sortie/core/model.hpp>
#include <sortie/core/store.hpp>
#include <string>

namespace sortie::session {

// Records `status` for `handle`; false (nothing changed) when the store cannot be written.
bool cache_status(core::AppStore& store, const std::string& handle, const core::AppStatus& status);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_STATUS_CACHE_HPP
