#include "worker_context.hpp"

#include <memory>
#include <sortie/runner/session_binding.hpp>

namespace sortie::ui {

WorkerContext::WorkerContext(const session::SessionOptions& options)
    : session_(options), runner_(runner::SessionBinding::over(session_)) {}

WorkerContext& WorkerContext::of_this_thread(const session::SessionOptions& options) {
  thread_local std::unique_ptr<WorkerContext> context;
  if (!context) context = std::make_unique<WorkerContext>(options);
  return *context;
}

}  // namespace sortie::ui
