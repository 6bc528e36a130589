// File: core/runner/include/sortie/runner/session_binding.hpp
//
// A Runner over an existing session, for the CLI: its commands share one session (one plugin
// host, one store) and become thin clients of the runner. Not installed.
#ifndef SORTIE_RUNNER_SESSION_BINDING_HPP
#define SORTIE_RUNNER_SESSION_BINDING_HPP

#include <sortie/runner.hpp>
#include <sortie/session/session.hpp>

namespace sortie::runner {

struct SessionBinding {
  // The runner uses `session`, which must outlive it.
  static Runner over(session::Session& session);
};

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_SESSION_BINDING_HPP
