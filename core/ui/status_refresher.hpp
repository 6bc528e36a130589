// File: core/ui/status_refresher.hpp
//
// Asks the schedulers of the store's active apps for their state a few times a second, through
// the runner (which records each change in the store's events table), so the dashboard's event
// stream sees a work unit fail even when no other sortie process is watching it.
#ifndef SORTIE_UI_STATUS_REFRESHER_HPP
#define SORTIE_UI_STATUS_REFRESHER_HPP

#include <atomic>
#include <chrono>
#include <sortie/session/session.hpp>
#include <thread>

namespace sortie::ui {

class StatusRefresher {
 public:
  StatusRefresher(const session::SessionOptions& options, std::chrono::milliseconds period);
  ~StatusRefresher();  // stops and joins the thread
  StatusRefresher(const StatusRefresher&) = delete;
  StatusRefresher& operator=(const StatusRefresher&) = delete;

 private:
  void refresh_until_stopped(session::SessionOptions options, std::chrono::milliseconds period);

  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace sortie::ui

#endif  // SORTIE_UI_STATUS_REFRESHER_HPP
