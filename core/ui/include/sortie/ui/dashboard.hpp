// File: core/ui/include/sortie/ui/dashboard.hpp
//
// `sortie ui`: a live web dashboard of the store's experiments and apps, served by an embedded
// HTTP server (cpp-httplib) with the page compiled into the binary. Reads through the runner API
// and the store, so it outlives the apps it shows; cancels only when allowed.
#ifndef SORTIE_UI_DASHBOARD_HPP
#define SORTIE_UI_DASHBOARD_HPP

#include <functional>
#include <sortie/session/session.hpp>
#include <string>

namespace sortie::ui {

struct DashboardOptions {
  std::string host = "127.0.0.1";
  int port = 8765;  // 0: any free port
  // Cancels, notes and tags (`--allow-writes`); read-only without.
  bool allow_writes = false;
  // Request workers; an event or log stream has a thread of its own while it is open, outside
  // them, within docs/limits.md L-16 and L-17.
  int threads = 64;
};

// Serves until `should_stop` returns true (checked a few times a second); `on_listening` gets the
// URL once the port is bound. Every worker thread opens its own session (store connection and
// plugin host) with `session_options`. A port that cannot be bound is Error::unavailable.
void serve_dashboard(const session::SessionOptions& session_options,
                     const DashboardOptions& options,
                     const std::function<void(const std::string& url)>& on_listening,
                     const std::function<bool()>& should_stop);

}  // namespace sortie::ui

#endif  // SORTIE_UI_DASHBOARD_HPP
