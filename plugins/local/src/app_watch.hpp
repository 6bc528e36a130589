// Sleeps until something about an app may have changed: the supervisor wrote state or output
// (app_notify.hpp) or exited (pidfd). Never polls on a timer.
#ifndef SORTIE_LOCAL_APP_WATCH_HPP
#define SORTIE_LOCAL_APP_WATCH_HPP

#include <cstdint>
#include <string>

#include "app_status.hpp"

namespace sortie::local {

class AppWatch {
 public:
  // Set it up *before* reading the state it guards, so no change between the read and the wait
  // is missed.
  explicit AppWatch(const std::string& app_dir);
  ~AppWatch();
  AppWatch(const AppWatch&) = delete;
  AppWatch& operator=(const AppWatch&) = delete;

  // Also wake up when this supervisor exits (once per watch; a no-op for pid 0).
  void watch_supervisor(const Supervision& supervisor);
  enum class Wake { kChanged, kTimeout, kSignal };
  // Waits up to timeout_ms (negative: forever) for a change. kSignal: a signal arrived, so the
  // caller can return and let the host's SIGINT handler act.
  Wake wait(int64_t timeout_ms);

 private:
  void open_fifo();
  std::string fifo_path_;
  int fifo_error_ = 0;  // why the FIFO could not be opened (ENOENT: the app ended)
  int fifo_fd_ = -1;
  int pid_fd_ = -1;
  bool supervisor_watched_ = false;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_APP_WATCH_HPP
