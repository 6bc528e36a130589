// Sleeps until something about an app may have changed: a file written or renamed in the watched
// directories (inotify) or the supervisor exiting (pidfd). Never polls on a timer.
#ifndef SORTIE_LOCAL_APP_WATCH_HPP
#define SORTIE_LOCAL_APP_WATCH_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "app_status.hpp"

namespace sortie::local {

class AppWatch {
 public:
  // Watches the app dir (state.json renames) and `log_dirs` (appends). Set it up *before* reading
  // the state it guards, so no change between the read and the wait is missed.
  AppWatch(const std::string& app_dir, const std::vector<std::string>& log_dirs);
  ~AppWatch();
  AppWatch(const AppWatch&) = delete;
  AppWatch& operator=(const AppWatch&) = delete;

  // Also wake up when this supervisor exits (once per watch; a no-op for pid 0).
  void watch_supervisor(const AppStatus& status);
  // Waits up to timeout_ms (negative: forever). Returns false on timeout.
  bool wait(int64_t timeout_ms);

 private:
  int inotify_fd_ = -1;
  int pid_fd_ = -1;
  bool supervisor_watched_ = false;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_APP_WATCH_HPP
