// The per-app supervisor process: starts the replicas of a LaunchRequest, collects their output,
// reaps them (and, as child subreaper, anything they leave behind), applies the retry policy,
// honours cancellation and keeps the app's state.json current. Single-threaded, driven by one
// epoll set (replica pipes, a signalfd and a grace-period timerfd).
#ifndef SORTIE_LOCAL_SUPERVISOR_HPP
#define SORTIE_LOCAL_SUPERVISOR_HPP

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app_status.hpp"
#include "containment_choice.hpp"
#include "launch_request.hpp"
#include "output_file_budget.hpp"
#include "replica_output.hpp"
#include "state_writer.hpp"

namespace sortie::local {

class Supervisor {
 public:
  // `containment` is what choose_containment() chose for this process (containment.hpp).
  Supervisor(LaunchRequest request, Containment containment);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Blocks the signals it handles and records itself (PENDING, its pid
  // and start time) in state.json, then closes `submit_lock_fd` (-1: none; submit_lock.hpp).
  // After this returns, a cancel() from any process is honoured.
  void prepare(int submit_lock_fd);
  // Starts the replicas and runs until the app is terminal. Returns the process exit code.
  int run();

 private:
  struct Replica {
    size_t role_index = 0;
    size_t replica_index = 0;
    pid_t pid = 0;  // 0 while not running
    int stdout_fd = -1;
    int stderr_fd = -1;
    bool restart_pending = false;           // being stopped so that its role or the app can restart
    std::unique_ptr<ReplicaOutput> output;  // null until the replica first writes
    bool output_lost = false;               // a write to its log files failed
    // While it is being stopped (SIGTERMed, pid != 0): when the grace period ends, on
    // CLOCK_MONOTONIC in ns. 0 otherwise; a process started later never has one.
    int64_t kill_at = 0;
  };

  ReplicaStatus& status_of(const Replica& replica);
  const ReplicaLaunch& launch_of(const Replica& replica) const;
  std::string name_of(const Replica& replica) const;

  ReplicaOutput& output_of(Replica& replica);
  void append_output(Replica& replica, int32_t stream, std::string_view bytes);
  void end_output(Replica& replica, int32_t stream);
  void output_failed(Replica& replica, const std::string& error);
  void start(Replica& replica);
  void on_signal();
  void on_output(Replica& replica, int32_t stream);
  void drain_and_close(Replica& replica, int32_t stream);
  void on_exit(Replica& replica, int wait_status);
  void handle_failure(Replica& replica);
  void restart_group(Replica& failed, bool whole_app);
  void start_pending_restarts();
  void terminate_running(const std::string& reason);
  void terminate(Replica& replica);
  // Kills what the replicas left behind, as the app's containment allows.
  void kill_leftovers();
  // SIGKILLs (and reaps) the processes re-parented to us, the subreaper or the namespace's init,
  // whose environment holds every one of `entries` (all of them when empty), until none is left;
  // returns how many. Run when a replica exits, for what it left outside its process group, and
  // when the app ends.
  size_t kill_adopted_orphans(const std::vector<std::string>& entries);
  void kill_namespace();
  void kill_cgroup();
  // Sets the grace timer to the earliest kill_at, or disarms it when no replica is being stopped.
  void arm_kill_timer();
  // SIGKILLs the replicas whose grace period is over.
  void kill_overdue();
  bool any_running() const;
  size_t open_pipe_ends() const;
  void update_app_state();
  // Records app_ in state.json; on failure logs why, leaves dirty_ set and returns false.
  bool write_state();
  // Writes the final state, retrying for as long as the disk refuses.
  void write_final_state();
  // Moves the recorded final state into the app directory (runtime_dir.hpp).
  void retire_runtime_files();

  LaunchRequest request_;
  std::string runtime_dir_;  // where state.json, the notify FIFO and cancel_request live
  StateWriter state_writer_;
  std::string state_unwritten_;  // why the last state.json write failed; empty once one succeeds
  LocalApp app_;
  std::vector<Replica> replicas_;
  OutputFileBudget output_budget_{0, 1};
  std::vector<int64_t> role_restarts_;
  std::optional<AppState> ending_state_;  // FAILED or CANCELLED once the app is shutting down
  int epoll_fd_ = -1;
  int signal_fd_ = -1;
  int timer_fd_ = -1;
  int cgroup_procs_fd_ = -1;      // the app cgroup's cgroup.procs, which each replica joins
  bool dirty_ = false;            // state changed since state.json was written
  bool waiters_pending_ = false;  // state or output written since waiters were woken
  bool cancelled_before_start_ = false;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_SUPERVISOR_HPP
