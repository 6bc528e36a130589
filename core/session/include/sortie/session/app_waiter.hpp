// File: core/session/include/sortie/session/app_waiter.hpp
//
// Follows an app's state until it is terminal, recording its changes in the store: the terminal
// state at once, an intermediate one once it has held 100 ms or when the wait returns without a
// terminal state (a short app costs one write; `list` asks the scheduler about unfinished apps
// anyway, so the record is a cache). Uses the scheduler's blocking wait() when it has one
// (event-driven), else describe() with back-off.
// SIGINT/SIGTERM interrupt the wait (handlers installed without SA_RESTART, so a blocked wait
// returns at once) and are reported through interrupted().
#ifndef SORTIE_SESSION_APP_WAITER_HPP
#define SORTIE_SESSION_APP_WAITER_HPP

#include <cstdint>
#include <optional>
#include <sortie/model/model.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <string>

namespace sortie::session {

class Session;

// Installs the SIGINT/SIGTERM handlers used by interrupted().
void install_interrupt_handlers();
// True once SIGINT or SIGTERM arrived after install_interrupt_handlers(); the signal number.
int interrupted();
// Forgets the signal that arrived, so that a wait after it (e.g. for a cancelled app to end) runs
// until the next one.
void clear_interrupted();

class AppWaiter {
 public:
  // Changes are recorded through `session` (status_cache.hpp) when `handle` is recorded there.
  AppWaiter(plugin_host::SchedulerClient& scheduler, Session& session, std::string handle,
            std::string app_id);

  // Returns the status once terminal, or nullopt when interrupted() or when `timeout_ms`
  // (negative = forever) passed first. The latest status is available from last().
  std::optional<model::AppStatus> until_terminal(int64_t timeout_ms);
  // One step: waits at most timeout_ms for a change (100 ms while a state waits to be recorded)
  // and records what is due (above). Returns the status.
  model::AppStatus step(int64_t timeout_ms);
  const std::optional<model::AppStatus>& last() const { return last_; }

 private:
  static constexpr int64_t kSettleMs = 100;
  model::AppStatus fetch(int64_t timeout_ms);
  // Writes last() to the store if it changed since the last write.
  void record_latest();
  plugin_host::SchedulerClient& scheduler_;
  Session& session_;
  std::string handle_;
  std::string app_id_;
  bool recorded_;  // apps launched elsewhere are followed but not recorded
  std::optional<model::AppStatus> last_;
  bool unrecorded_ = false;  // last_ differs from what this waiter last recorded
  int64_t poll_ms_ = 5;      // back-off for schedulers without wait()
};

}  // namespace sortie::session

#endif  // SORTIE_SESSION_APP_WAITER_HPP
