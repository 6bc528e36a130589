// File: core/runner/include/sortie/runner/unfinished_calls.hpp
//
// In-process plugin calls that missed their deadline (describe in `list`, docs/config-trust.md
// TRUST-11). A call into a loaded library cannot be stopped, so it goes on running on a thread
// of its own, holding its scheduler. Such a thread must never see the process tear itself down:
// exit() runs every library's static destructors, the plugin's own among them, under the code
// still running, which can crash a command that has already printed its answer. A host that ends
// while calls_past_deadline_running() > 0 ends with leave_process() instead (the CLI does).
#ifndef SORTIE_RUNNER_UNFINISHED_CALLS_HPP
#define SORTIE_RUNNER_UNFINISHED_CALLS_HPP

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>

namespace sortie::runner {

// Keeps `call` (a thread running plugin code past its deadline) until it finishes; `finished`
// must become true once it has nothing left to do. Joins the adopted calls that have finished.
void adopt_call_past_deadline(std::thread call, std::shared_ptr<std::atomic<bool>> finished);

// How many adopted calls are still running.
size_t calls_past_deadline_running();

// Flushes stdio and iostreams and ends the process with `exit_status` without running exit-time
// destructors, so that calls still running finish with the process instead of under it.
[[noreturn]] void leave_process(int exit_status);

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_UNFINISHED_CALLS_HPP
