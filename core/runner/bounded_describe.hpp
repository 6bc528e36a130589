// File: core/runner/bounded_describe.hpp (private)
//
// describe() of many apps with a deadline on each, so that one scheduler that stops answering
// cannot hold up `sortie list` for every other app (docs/config-trust.md, TRUST-11).
#ifndef SORTIE_RUNNER_BOUNDED_DESCRIBE_HPP
#define SORTIE_RUNNER_BOUNDED_DESCRIBE_HPP

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <sortie/plugin_host/plugin_host.hpp>
#include <string>
#include <vector>

namespace sortie::runner {

// What scheduler->describe(app_id) returned, or the Error it threw.
struct Described {
  std::optional<std::string> json;
  std::exception_ptr error;
};

// scheduler->describe of each of `app_ids`, in turn on one thread (not one per app: a list of
// 100,000 apps starts one thread per scheduler). Once a describe misses `deadline`, it and the
// apps after it get Error(DEADLINE_EXCEEDED), and the call left running keeps `scheduler` alive
// until it returns (in process, a call cannot be stopped), adopted by adopt_call_past_deadline
// (sortie/runner/unfinished_calls.hpp). `progress(done)` is called as answers arrive.
std::vector<Described> describe_each_within(std::shared_ptr<plugin_host::SchedulerClient> scheduler,
                                            const std::vector<std::string>& app_ids,
                                            std::chrono::milliseconds deadline,
                                            const std::function<void(size_t done)>& progress);

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_BOUNDED_DESCRIBE_HPP
