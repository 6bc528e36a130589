#include "status_refresher.hpp"

#include <cstdio>
#include <sortie/model/printable.hpp>
#include <string>

#include "worker_context.hpp"

namespace sortie::ui {

StatusRefresher::StatusRefresher(const session::SessionOptions& options,
                                 std::chrono::milliseconds period)
    : thread_([this, options, period] { refresh_until_stopped(options, period); }) {}

StatusRefresher::~StatusRefresher() {
  stopping_ = true;
  thread_.join();
}

void StatusRefresher::refresh_until_stopped(session::SessionOptions options,
                                            std::chrono::milliseconds period) {
  WorkerContext context(options);
  std::string last_problem;
  runner::ListOptions active;
  active.active_only = true;
  while (!stopping_) {
    // Runner::list refreshes and records every non-terminal app; one it cannot ask is reported
    // once per distinct reason, not every period.
    try {
      for (const runner::ListedApp& app : context.runner().list(active).apps) {
        if (!app.unverified.empty() && app.unverified != last_problem) {
          last_problem = app.unverified;
          std::fprintf(stderr, "sortie ui: warning: %s: %s\n", model::printable(app.handle).c_str(),
                       model::printable_message(app.unverified).c_str());
        }
      }
    } catch (const std::exception& e) {
      if (last_problem != e.what()) {
        last_problem = e.what();
        std::fprintf(stderr, "sortie ui: warning: refreshing states: %s\n",
                     model::printable_message(e.what()).c_str());
      }
    }
    std::this_thread::sleep_for(period);
  }
}

}  // namespace sortie::ui
