// The store keeps the last status a scheduler reported for each app, as a cache for `list` and
// for apps whose scheduler later forgets them. Readers (status, log, wait, list) refresh it when
// the state or restart count changed, through the writers' connection opened only then, and
// never fail because of it: a full disk or read-only store still answers (docs/store.md).
#ifndef SORTIE_SESSION_STATUS_CACHE_HPP
#define SORTIE_SESSION_STATUS_CACHE_HPP

#include <sortie/model/model.hpp>
#include <sortie/store/store.hpp>
#include <string>
#include <vector>

namespace sortie::session {

class Session;

// Records `status` for the recorded app `handle` unless the store already has its state and
// restart count; false when `handle` is not recorded or the store cannot be written.
bool cache_status(Session& session, const std::string& handle, const model::AppStatus& status);
// Records each of `refreshed` in one transaction (AppStore::record_statuses), for callers that
// know them to differ from what they listed; false when the store cannot be written.
bool cache_statuses(Session& session, const std::vector<store::RefreshedStatus>& refreshed);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_STATUS_CACHE_HPP
