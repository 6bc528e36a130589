// File: core/runner/runner_impl.hpp
//
// What a Runner holds: its session (its own, or the CLI's), and its statuses: the core's (the
// SDK's) with where they came from.
#ifndef SORTIE_RUNNER_RUNNER_IMPL_HPP
#define SORTIE_RUNNER_RUNNER_IMPL_HPP

#include <optional>
#include <sortie/core/model.hpp>
#include <sortie/error.hpp>
#include <sortie/runner.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/session.hpp>

namespace sortie::runner {

class Runner::Impl {
 public:
  explicit Impl(session::Session& borrowed) : session_(borrowed) {}
  explicit Impl(session::SessionOptions options)
      : owned_(std::in_place, std::move(options)), session_(*owned_) {}
  session::Session& session() { return session_; }

 private:
  std::optional<session::Session> owned_;
  session::Session& session_;
};

// Error(NOT_FOUND) for an app neither its scheduler nor the store knows.
Error unknown_app(const std::string& handle);
AppStatus public_status(const core::AppStatus& status, bool from_store_only);
// The looked-up app's status (which must be known), saying whether and why it is the store's.
AppStatus public_status(const session::AppLookup& app);

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_RUNNER_IMPL_HPP
