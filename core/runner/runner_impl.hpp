// File: core/runner/runner_impl.hpp
//
// What a Runner holds: its session (its own, or the CLI's), the apps it looked up, and its
// statuses: the core's (the SDK's) with where they came from.
#ifndef SORTIE_RUNNER_RUNNER_IMPL_HPP
#define SORTIE_RUNNER_RUNNER_IMPL_HPP

#include <map>
#include <memory>
#include <optional>
#include <sortie/error.hpp>
#include <sortie/model/model.hpp>
#include <sortie/runner.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/launcher.hpp>
#include <sortie/session/session.hpp>

namespace sortie::runner {

// A dry run ready to be submitted by the scheduler client that made it.
struct PlannedRun {
  session::LaunchPlan plan;
  session::DryRunResult dry;
  std::unique_ptr<plugin_host::SchedulerClient> scheduler;
};

class Runner::Impl {
 public:
  explicit Impl(session::Session& borrowed) : session_(borrowed) {}
  explicit Impl(session::SessionOptions options)
      : owned_(std::in_place, std::move(options)), session_(*owned_) {}
  session::Session& session() { return session_; }

  // The app behind `handle`, its scheduler asked for its state now; remembered.
  session::AppLookup& look_up(const std::string& handle);
  // An app just submitted through `scheduler`, known by the status the store recorded for it.
  void remember_submitted(const std::string& handle,
                          std::unique_ptr<plugin_host::SchedulerClient> scheduler);
  // The app as last looked up if it was known then, else looked up now.
  session::AppLookup& known_app(const std::string& handle);

 private:
  std::optional<session::Session> owned_;
  session::Session& session_;
  std::map<std::string, session::AppLookup> apps_;  // by canonical handle
};

// Error(NOT_FOUND) for an app neither its scheduler nor the store knows.
Error unknown_app(const std::string& handle);
AppStatus public_status(const model::AppStatus& status, bool from_store_only);
// The looked-up app's status (which must be known), saying whether and why it is the store's.
AppStatus public_status(const session::AppLookup& app);

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_RUNNER_IMPL_HPP
