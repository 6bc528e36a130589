#include <sortie/core/error.hpp>
#include <sortie/session/status_cache.hpp>

namespace sortie::session {

bool cache_status(core::AppStore& store, const std::string& handle, const core::AppStatus& status) {
  try {
    store.record_status(handle, status);
    return true;
  } catch (const core::Error&) {
    return false;
  }
}

}  // namespace sortie::session
