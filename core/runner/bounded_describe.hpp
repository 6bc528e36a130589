// File: core/runner/bounded_describe.hpp (private)
//
// describe() with a deadline, so that one scheduler that stops answering cannot hold up
// `sortie list` for every other app (docs/config-trust.md, TRUST-11).
#ifndef SORTIE_RUNNER_BOUNDED_DESCRIBE_HPP
#define SORTIE_RUNNER_BOUNDED_DESCRIBE_HPP

#include <chrono>
#include <memory>
#include <optional>
#include <sortie/plugin_host/plugin_host.hpp>
#include <string>

namespace sortie::runner {

// What scheduler->describe(app_id) returns or throws, if it does within `deadline`; otherwise
// throws Error(DEADLINE_EXCEEDED) and leaves the call running on a thread of its own, which
// keeps `scheduler` alive until it returns (in process, a call cannot be stopped) and is adopted
// by adopt_call_past_deadline (sortie/runner/unfinished_calls.hpp).
std::optional<std::string> describe_within(std::shared_ptr<plugin_host::SchedulerClient> scheduler,
                                           const std::string& app_id,
                                           std::chrono::milliseconds deadline);

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_BOUNDED_DESCRIBE_HPP
