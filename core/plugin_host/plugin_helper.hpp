// File: core/plugin_host/plugin_helper.hpp
//
// One `sortie-plugin-host` child process seen from the host: started with its channel on fd 3,
// its stdout on a pipe the host reads (so nothing a plugin prints reaches the host's output) and
// its stdin on /dev/null. exchange() sends one request and waits for the reply, the helper's
// death or the deadline, whichever comes first; once the helper is dead or stopped every later
// exchange reports the same cause. Private to the plugin host.
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_HELPER_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_HELPER_HPP

#include <sortie/plugin_abi.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

namespace sortie::plugin_host::detail {

class HelperProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // What an exchange produced: the reply, or why there is none.
  struct Outcome {
    std::optional<std::string> reply;
    sortie_status status = SORTIE_OK;  // when there is no reply: UNAVAILABLE or DEADLINE_EXCEEDED
    std::string failure;               // when there is no reply: "its process died of ..."
    std::string stdout_text;           // what the helper wrote to its stdout meanwhile
  };

  // Starts `helper_path`; throws Error(FAILED_PRECONDITION) naming it when that fails.
  explicit HelperProcess(const std::string& helper_path);
  ~HelperProcess();  // stops and reaps the helper
  HelperProcess(const HelperProcess&) = delete;
  HelperProcess& operator=(const HelperProcess&) = delete;

  // `call` names the request in failure messages; no deadline when `timeout` is empty.
  Outcome exchange(const std::string& request, const char* call,
                   std::optional<std::chrono::milliseconds> timeout);
  bool running() const { return !gone_.has_value(); }
  // Kills the helper (after a reply that breaks the protocol); later exchanges report `failure`.
  void stop(sortie_status status, const std::string& failure);

 private:
  // Closes the channel, reaps the helper (killing it unless it ends within a grace period, or at
  // once when `kill_now`) and records the cause for later exchanges. Returns how it ended:
  // "died of SIGSEGV (Segmentation fault)", "exited with status 3" or "was killed".
  std::string finish(bool kill_now);
  Outcome fail(sortie_status status, const std::string& failure);
  void drain_stdout(std::string& text);

  pid_t pid_ = -1;
  int channel_ = -1;
  int stdout_ = -1;
  int pidfd_ = -1;  // -1 when the kernel lacks pidfd_open; the channel's EOF then tells
  std::optional<Outcome> gone_;
};

}  // namespace sortie::plugin_host::detail

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_HELPER_HPP
