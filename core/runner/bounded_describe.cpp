#include "bounded_describe.hpp"

#include <atomic>
#include <future>
#include <sortie/model/error.hpp>
#include <sortie/runner/unfinished_calls.hpp>
#include <thread>
#include <utility>

namespace sortie::runner {

std::optional<std::string> describe_within(std::shared_ptr<plugin_host::SchedulerClient> scheduler,
                                           const std::string& app_id,
                                           std::chrono::milliseconds deadline) {
  auto answer = std::make_shared<std::promise<std::optional<std::string>>>();
  std::future<std::optional<std::string>> answered = answer->get_future();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const std::string context = scheduler->context();
  std::thread call([scheduler = std::move(scheduler), app_id, answer, finished]() mutable {
    try {
      answer->set_value(scheduler->describe(app_id));
    } catch (...) {
      answer->set_exception(std::current_exception());
    }
    scheduler.reset();  // the last reference may destroy the scheduler: plugin code too
    *finished = true;
  });
  if (answered.wait_for(deadline) != std::future_status::ready) {
    adopt_call_past_deadline(std::move(call), std::move(finished));
    const auto seconds = std::chrono::duration<double>(deadline).count();
    throw Error::deadline_exceeded(context + " did not answer describe within " +
                                   std::to_string(seconds).substr(0, 4) +
                                   " s; the state shown is the one recorded last");
  }
  call.join();
  return answered.get();
}

}  // namespace sortie::runner
