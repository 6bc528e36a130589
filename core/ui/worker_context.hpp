// File: core/ui/worker_context.hpp
//
// A session (its own store connection and plugin host) and a runner over it, one per server
// thread: sessions are not shared between threads, and a slow plugin call on one thread never
// holds a lock the others wait for.
#ifndef SORTIE_UI_WORKER_CONTEXT_HPP
#define SORTIE_UI_WORKER_CONTEXT_HPP

#include <sortie/runner.hpp>
#include <sortie/session/session.hpp>

namespace sortie::ui {

class WorkerContext {
 public:
  explicit WorkerContext(const session::SessionOptions& options);
  // The calling thread's context, opened on its first use with `options`.
  static WorkerContext& of_this_thread(const session::SessionOptions& options);

  session::Session& session() { return session_; }
  runner::Runner& runner() { return runner_; }

 private:
  session::Session session_;
  runner::Runner runner_;  // over session_, declared after it
};

}  // namespace sortie::ui

#endif  // SORTIE_UI_WORKER_CONTEXT_HPP
