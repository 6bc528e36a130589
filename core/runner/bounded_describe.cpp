#include "bounded_describe.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <sortie/model/error.hpp>
#include <sortie/runner/unfinished_calls.hpp>
#include <thread>
#include <utility>

namespace sortie::runner {

namespace {

// How often the caller looks at how far the describing thread got.
constexpr std::chrono::milliseconds kProgressTick{50};

// Shared by the describing thread and the waiting caller, which may stop waiting first.
struct Answers {
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<Described> described;
  bool abandoned = false;  // the caller stopped waiting: describe no more
};

}  // namespace

std::vector<Described> describe_each_within(std::shared_ptr<plugin_host::SchedulerClient> scheduler,
                                            const std::vector<std::string>& app_ids,
                                            std::chrono::milliseconds deadline,
                                            const std::function<void(size_t done)>& progress) {
  auto answers = std::make_shared<Answers>();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const std::string context = scheduler->context();
  std::thread call([scheduler = std::move(scheduler), app_ids, answers, finished]() mutable {
    for (const std::string& app_id : app_ids) {
      Described described;
      try {
        described.json = scheduler->describe(app_id);
      } catch (...) {
        described.error = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(answers->mutex);
      if (answers->abandoned) break;
      answers->described.push_back(std::move(described));
      // Only the last answer wakes the caller, who otherwise looks every kProgressTick: a wake-up
      // per answer cost more than reading the app's state (issue 34).
      if (answers->described.size() == app_ids.size()) answers->arrived.notify_one();
    }
    scheduler.reset();  // the last reference may destroy the scheduler: plugin code too
    *finished = true;
  });
  std::unique_lock<std::mutex> lock(answers->mutex);
  size_t done = 0;
  auto last_answer = std::chrono::steady_clock::now();
  while (answers->described.size() < app_ids.size()) {
    answers->arrived.wait_for(lock, std::min<std::chrono::milliseconds>(kProgressTick, deadline));
    const auto now = std::chrono::steady_clock::now();
    if (answers->described.size() > done) {
      done = answers->described.size();
      last_answer = now;
    } else if (now - last_answer >= deadline) {
      answers->abandoned = true;
      std::vector<Described> described = std::move(answers->described);
      lock.unlock();
      adopt_call_past_deadline(std::move(call), std::move(finished));
      const auto seconds = std::chrono::duration<double>(deadline).count();
      const auto missed = std::make_exception_ptr(Error::deadline_exceeded(
          context + " did not answer describe within " + std::to_string(seconds).substr(0, 4) +
          " s; the state shown is the one recorded last"));
      described.resize(app_ids.size(), Described{std::nullopt, missed});
      return described;
    }
    if (progress) {
      lock.unlock();
      progress(done);
      lock.lock();
    }
  }
  std::vector<Described> described = std::move(answers->described);
  lock.unlock();
  call.join();
  return described;
}

}  // namespace sortie::runner
