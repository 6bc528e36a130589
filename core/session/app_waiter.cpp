#include <chrono>
#include <csignal>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/session.hpp>
#include <sortie/session/status_cache.hpp>
#include <thread>
#include <utility>

namespace sortie::session {

namespace {

volatile std::sig_atomic_t g_interrupt_signal = 0;

void on_interrupt(int signal) { g_interrupt_signal = signal; }

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked wait returns with EINTR
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interrupted() { return g_interrupt_signal; }

void clear_interrupted() { g_interrupt_signal = 0; }

AppWaiter::AppWaiter(plugin_host::SchedulerClient& scheduler, Session& session, std::string handle,
                     std::string app_id)
    : scheduler_(scheduler),
      session_(session),
      handle_(std::move(handle)),
      app_id_(std::move(app_id)),
      recorded_(session_.records().get(handle_).has_value()) {}

model::AppStatus AppWaiter::fetch(int64_t timeout_ms) {
  if (scheduler_.can_wait()) {
    const std::string known = last_ ? model::to_string(last_->state) : "";
    return model::status_from_json(scheduler_.wait(app_id_, known, timeout_ms),
                                   scheduler_.context());
  }
  if (last_) {
    const int64_t pause = std::min(poll_ms_, timeout_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(pause));
    poll_ms_ = std::min<int64_t>(poll_ms_ * 2, 1000);
  }
  auto json = scheduler_.describe(app_id_);
  if (!json) {
    // The backend lost an app it had: its failure, not the user's (exit 3).
    throw Error::unavailable(scheduler_.context() + " no longer knows app '" + app_id_ + "'");
  }
  return model::status_from_json(*json, scheduler_.context());
}

model::AppStatus AppWaiter::step(int64_t timeout_ms) {
  // An unrecorded state is recorded once it has held kSettleMs, so the wait is cut to that.
  const bool settling = unrecorded_;
  model::AppStatus status = fetch(settling ? std::min(timeout_ms, kSettleMs) : timeout_ms);
  const bool changed =
      !last_ || last_->state != status.state || last_->num_restarts != status.num_restarts;
  last_ = status;
  if (changed) unrecorded_ = true;
  if (model::is_terminal(status.state) || (settling && !changed)) record_latest();
  return status;
}

void AppWaiter::record_latest() {
  if (unrecorded_ && recorded_ && last_) cache_status(session_, handle_, *last_);
  unrecorded_ = false;
}

std::optional<model::AppStatus> AppWaiter::until_terminal(int64_t timeout_ms) {
  const int64_t deadline = timeout_ms < 0 ? -1 : steady_ms() + timeout_ms;
  while (interrupted() == 0) {
    int64_t slice = 60'000;
    if (deadline >= 0) {
      slice = std::min(slice, deadline - steady_ms());
      if (slice <= 0) break;
    }
    model::AppStatus status = step(slice);
    if (model::is_terminal(status.state)) return status;
  }
  record_latest();
  return std::nullopt;
}

}  // namespace sortie::session
