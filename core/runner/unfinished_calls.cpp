#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <sortie/runner/unfinished_calls.hpp>
#include <utility>
#include <vector>

namespace sortie::runner {
namespace {

struct UnfinishedCall {
  std::thread thread;
  std::shared_ptr<std::atomic<bool>> finished;
};

struct UnfinishedCalls {
  std::mutex mutex;
  std::vector<UnfinishedCall> calls;
};

// Never destroyed: destroying a std::thread that still runs would terminate the process.
UnfinishedCalls& unfinished_calls() {
  static auto* calls = new UnfinishedCalls;
  return *calls;
}

}  // namespace

void adopt_call_past_deadline(std::thread call, std::shared_ptr<std::atomic<bool>> finished) {
  UnfinishedCalls& registry = unfinished_calls();
  const std::lock_guard<std::mutex> lock(registry.mutex);
  const auto done =
      std::partition(registry.calls.begin(), registry.calls.end(),
                     [](const UnfinishedCall& adopted) { return !*adopted.finished; });
  for (auto it = done; it != registry.calls.end(); ++it) it->thread.join();
  registry.calls.erase(done, registry.calls.end());
  registry.calls.push_back({std::move(call), std::move(finished)});
}

size_t calls_past_deadline_running() {
  UnfinishedCalls& registry = unfinished_calls();
  const std::lock_guard<std::mutex> lock(registry.mutex);
  return static_cast<size_t>(
      std::count_if(registry.calls.begin(), registry.calls.end(),
                    [](const UnfinishedCall& adopted) { return !*adopted.finished; }));
}

void leave_process(int exit_status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(exit_status);
}

}  // namespace sortie::runner
