#include <sortie/model/error.hpp>
#include <sortie/session/session.hpp>
#include <sortie/session/status_cache.hpp>

namespace sortie::session {

bool cache_status(Session& session, const std::string& handle, const model::AppStatus& status) {
  try {
    const std::optional<store::AppRecord> recorded = session.records().get(handle);
    if (!recorded) return false;
    // What the store already says is not written again: a reader writes only news.
    if (recorded->state == status.state && recorded->num_restarts == status.num_restarts) {
      return true;
    }
    session.store().record_status(handle, status);
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool cache_statuses(Session& session, const std::vector<store::RefreshedStatus>& refreshed) {
  if (refreshed.empty()) return true;
  try {
    session.store().record_statuses(refreshed);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace sortie::session
