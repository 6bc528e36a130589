#include "supervisor.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sortie/plugin.hpp>
#include <string>
#include <vector>

#include "app_cgroup.hpp"
#include "app_notify.hpp"
#include "containment.hpp"
#include "file_util.hpp"
#include "pid_namespace.hpp"
#include "process_info.hpp"
#include "replica_launcher.hpp"
#include "runtime_dir.hpp"
#include "start_failure.hpp"

namespace sortie::local {
namespace {

// epoll user data: the two fixed sources, then two pipes per replica.
constexpr uint64_t kSignalSource = 0;
constexpr uint64_t kTimerSource = 1;
constexpr uint64_t kFirstPipeSource = 2;

uint64_t pipe_source(size_t replica, int32_t stream) {
  return kFirstPipeSource + replica * 2 + (stream == SORTIE_STREAM_STDOUT ? 0 : 1);
}

// Our children now, as /proc names them: the host's pids, even in a PID namespace (the supervisor
// has one thread, whose children file lists them all). None on a kernel without
// CONFIG_PROC_CHILDREN, where what replicas left outside their groups dies with the app only.
std::vector<pid_t> child_proc_pids() {
  std::vector<pid_t> children;
  std::ifstream listed("/proc/thread-self/children");
  for (pid_t pid = 0; listed >> pid;) children.push_back(pid);
  return children;
}

// The pid kill() and waitpid() take here for the process /proc names `proc_pid`: ours differs in a
// PID namespace, where /proc stays the host's (the last field of NSpid is ours); 0 once it is gone.
pid_t own_pid_of(pid_t proc_pid) {
  std::ifstream status("/proc/" + std::to_string(proc_pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("NSpid:")) {
      return static_cast<pid_t>(std::stol(line.substr(line.find_last_of(" \t") + 1)));
    }
  }
  return 0;
}

void watch(int epoll_fd, int fd, uint64_t source) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = source;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) throw_errno("epoll_ctl");
}

void log_event(const std::string& text) { std::fprintf(stderr, "%s\n", text.c_str()); }

}  // namespace

Supervisor::Supervisor(LaunchRequest request, Containment containment)
    : request_(std::move(request)),
      runtime_dir_(runtime_dir_of(request_.app_dir)),
      state_writer_(runtime_dir_) {
  app_.supervisor.containment = std::move(containment.kind);
  app_.supervisor.cgroup = std::move(containment.cgroup_dir);
}

Supervisor::~Supervisor() {
  for (Replica& replica : replicas_) {
    if (replica.stdout_fd >= 0) ::close(replica.stdout_fd);
    if (replica.stderr_fd >= 0) ::close(replica.stderr_fd);
  }
  for (int fd : {epoll_fd_, signal_fd_, timer_fd_, cgroup_procs_fd_}) {
    if (fd >= 0) ::close(fd);
  }
}

ReplicaStatus& Supervisor::status_of(const Replica& replica) {
  return app_.status.roles[replica.role_index].replicas[replica.replica_index];
}

const ReplicaLaunch& Supervisor::launch_of(const Replica& replica) const {
  return request_.roles[replica.role_index].replicas[replica.replica_index];
}

std::string Supervisor::name_of(const Replica& replica) const {
  return request_.roles[replica.role_index].name + "/" + std::to_string(launch_of(replica).id);
}

void Supervisor::prepare(int submit_lock_fd) {
  sigset_t handled;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGINT);
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  // The supervisor outlives the terminal it was started from.
  ::signal(SIGHUP, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
  // A file-size limit makes writes fail with EFBIG, which StateWriter and the logs handle.
  ::signal(SIGXFSZ, SIG_IGN);
  signal_fd_ = ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  if (signal_fd_ < 0 || epoll_fd_ < 0 || timer_fd_ < 0) throw_errno("supervisor setup");
  if (!app_.supervisor.cgroup.empty()) {
    const std::string procs = app_.supervisor.cgroup + "/cgroup.procs";
    cgroup_procs_fd_ = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (cgroup_procs_fd_ < 0) throw_errno("cannot open " + procs);
  }
  watch(epoll_fd_, signal_fd_, kSignalSource);
  watch(epoll_fd_, timer_fd_, kTimerSource);

  app_.status.app_id = request_.app_id;
  app_.name = request_.app_name;
  app_.session = request_.session;
  app_.status.state = AppState::kPending;
  // Readers outside our PID namespace know us by our pid on the host.
  app_.supervisor.pid = host_pid();
  app_.supervisor.start_time =
      process_start_time(static_cast<pid_t>(*app_.supervisor.pid)).value_or(0);
  for (size_t r = 0; r < request_.roles.size(); ++r) {
    const RoleLaunch& role = request_.roles[r];
    RoleStatus role_status;
    role_status.role = role.name;
    for (size_t k = 0; k < role.replicas.size(); ++k) {
      ReplicaStatus replica_status;
      replica_status.id = role.replicas[k].id;
      replica_status.state = state_of(ProcessFate::kNotStarted);
      role_status.replicas.push_back(replica_status);
      Replica replica;
      replica.role_index = r;
      replica.replica_index = k;
      replicas_.push_back(std::move(replica));
    }
    app_.status.roles.push_back(std::move(role_status));
  }
  role_restarts_.assign(request_.roles.size(), 0);
  rlimit fd_limit{};
  ::getrlimit(RLIMIT_NOFILE, &fd_limit);
  output_budget_ = OutputFileBudget(replicas_.size(), fd_limit.rlim_cur);
  if (!write_state()) {
    throw Error::unavailable("cannot record the supervisor in state.json: " + state_unwritten_);
  }
  if (submit_lock_fd >= 0) ::close(submit_lock_fd);  // recorded: the submission is over
  // Checked after recording ourselves: a cancel() that found no supervisor pid left this file
  // before reading the state, so one of the two always sees the other.
  cancelled_before_start_ = ::access(cancel_request_path(runtime_dir_).c_str(), F_OK) == 0;
}

int Supervisor::run() {
  if (cancelled_before_start_) {
    app_.status.state = AppState::kCancelled;
    app_.status.msg = "cancelled before its replicas started";
    for (RoleStatus& role : app_.status.roles) {
      for (ReplicaStatus& replica : role.replicas) {
        replica.state = state_of(ProcessFate::kStoppedBySortie);
      }
    }
    kill_leftovers();  // nothing ran, but the app's cgroup exists
    write_final_state();
    notify_waiters(runtime_dir_);
    retire_runtime_files();
    log_event("app " + app_.status.app_id + " " + app_.status.msg);
    return 0;
  }
  for (Replica& replica : replicas_) start(replica);
  update_app_state();
  epoll_event events[64];
  while (!is_terminal(app_.status.state)) {
    if (dirty_) write_state();
    if (waiters_pending_) {
      notify_waiters(runtime_dir_);
      waiters_pending_ = false;
    }
    // A state that could not be written is retried every second, whatever else happens.
    const int count = ::epoll_wait(epoll_fd_, events, 64, dirty_ ? 1000 : -1);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) throw_errno("epoll_wait");
    for (int i = 0; i < count; ++i) {
      const uint64_t source = events[i].data.u64;
      if (source == kSignalSource) {
        on_signal();
      } else if (source == kTimerSource) {
        uint64_t expirations = 0;
        [[maybe_unused]] const ssize_t n = ::read(timer_fd_, &expirations, sizeof(expirations));
        kill_overdue();
      } else {
        const size_t index = (source - kFirstPipeSource) / 2;
        const int32_t stream =
            (source - kFirstPipeSource) % 2 == 0 ? SORTIE_STREAM_STDOUT : SORTIE_STREAM_STDERR;
        on_output(replicas_[index], stream);
      }
    }
  }
  kill_leftovers();
  write_final_state();
  notify_waiters(runtime_dir_);
  retire_runtime_files();
  log_event("app " + app_.status.app_id + " ended " +
            std::string(app_state_name(app_.status.state)));
  return 0;
}

void Supervisor::kill_leftovers() {
  if (app_.supervisor.containment == kPidNamespace) {
    kill_namespace();
  } else if (app_.supervisor.containment == kCgroup) {
    kill_cgroup();
  } else {
    kill_adopted_orphans({});
    const int killed = kill_marked_processes(request_.app_dir);
    if (killed > 0)
      log_event("killed " + std::to_string(killed) + " marked process(es) left by replicas");
  }
}

void Supervisor::kill_namespace() {
  // As the namespace's init, kill(-1) reaches every other process in it, wherever it moved. On
  // the host it would reach all of the user's processes: never unless we are that init.
  if (::getpid() != 1) return;
  if (::kill(-1, SIGKILL) == 0) log_event("killed the processes the replicas left behind");
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
}

void Supervisor::kill_cgroup() {
  ::close(cgroup_procs_fd_);
  cgroup_procs_fd_ = -1;
  const std::string left = kill_and_remove_cgroup(app_.supervisor.cgroup);
  if (!left.empty()) log_event(left);
  // What the replicas left behind was re-parented to us (the subreaper) and is now a zombie.
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

size_t Supervisor::kill_adopted_orphans(const std::vector<std::string>& entries) {
  size_t killed = 0;
  // Killing one re-parents its children to us in turn, hence the rounds.
  for (int round = 0; round < 100; ++round) {
    std::vector<pid_t> doomed;
    for (const pid_t proc_pid : child_proc_pids()) {
      const bool replica = std::any_of(replicas_.begin(), replicas_.end(), [&](Replica& running) {
        return running.pid != 0 && status_of(running).pid == proc_pid;
      });
      const bool marked =
          !replica && std::all_of(entries.begin(), entries.end(), [&](const std::string& entry) {
            return environment_holds(proc_pid, entry);
          });
      const pid_t pid = marked ? own_pid_of(proc_pid) : 0;
      if (pid > 0) doomed.push_back(pid);
    }
    if (doomed.empty()) break;
    for (const pid_t pid : doomed) {
      ::kill(pid, SIGKILL);
      log_event("killed pid " + std::to_string(pid) + ", left behind by a replica");
    }
    // Reaped here, so that whatever is judged or started next runs without them.
    for (const pid_t pid : doomed) ::waitpid(pid, nullptr, 0);
    killed += doomed.size();
  }
  return killed;
}

void Supervisor::start(Replica& replica) {
  ReplicaStatus& status = status_of(replica);
  status.exit_code.reset();
  status.finished_at.reset();
  status.msg.clear();
  status.started_at = now_ns();
  dirty_ = true;
  LaunchedReplica launched;
  try {
    if (!output_budget_.pipes_fit(open_pipe_ends())) {
      throw open_file_limit_reached("replica " + std::to_string(launch_of(replica).id));
    }
    launched = launch_replica(launch_of(replica), request_.app_dir, cgroup_procs_fd_);
  } catch (const Error& error) {
    status.state = state_of(ProcessFate::kFailed);
    status.msg = error.what();
    handle_failure(replica);
    return;
  }
  replica.pid = launched.pid;
  status.pid = launched.host_pid;
  replica.stdout_fd = launched.stdout_fd;
  replica.stderr_fd = launched.stderr_fd;
  const size_t index = static_cast<size_t>(&replica - replicas_.data());
  watch(epoll_fd_, replica.stdout_fd, pipe_source(index, SORTIE_STREAM_STDOUT));
  watch(epoll_fd_, replica.stderr_fd, pipe_source(index, SORTIE_STREAM_STDERR));
  status.state = state_of(ProcessFate::kRunning);
  status.msg = launched.exec_error;
  log_event("started " + name_of(replica) + " pid " + std::to_string(launched.pid) +
            (launched.exec_error.empty() ? "" : ": " + launched.exec_error));
}

void Supervisor::on_signal() {
  signalfd_siginfo info{};
  while (::read(signal_fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
    if (info.ssi_signo == SIGCHLD) {
      int wait_status = 0;
      pid_t pid;
      // Reaps replicas and, as subreaper, whatever they orphaned.
      while ((pid = ::waitpid(-1, &wait_status, WNOHANG)) > 0) {
        for (Replica& replica : replicas_) {
          if (replica.pid == pid) {
            on_exit(replica, wait_status);
            break;
          }
        }
      }
    } else if (!ending_state_) {
      ending_state_ = AppState::kCancelled;
      app_.status.msg = std::string("cancelled (") +
                        (info.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM") + " to the supervisor)";
      log_event(app_.status.msg);
      terminate_running(app_.status.msg);
    }
  }
  update_app_state();
}

ReplicaOutput& Supervisor::output_of(Replica& replica) {
  // Created on the first output: a replica that prints nothing costs no files, and creating
  // eight inodes per replica before starting it would delay a wide app (docs/benchmarks.md).
  const size_t evicted = output_budget_.use(static_cast<size_t>(&replica - replicas_.data()));
  if (evicted != OutputFileBudget::kNone) replicas_[evicted].output->close_files();
  if (!replica.output) {
    const std::string dir = replica_dir(request_.app_dir, request_.roles[replica.role_index].name,
                                        launch_of(replica).id);
    make_directories(dir);
    replica.output = std::make_unique<ReplicaOutput>(dir);
  }
  return *replica.output;
}

void Supervisor::append_output(Replica& replica, int32_t stream, std::string_view bytes) {
  try {
    output_of(replica).write(stream, bytes, now_ns());
  } catch (const Error& error) {
    output_failed(replica, error.what());
  }
}

void Supervisor::end_output(Replica& replica, int32_t stream) {
  if (!replica.output) return;
  try {
    output_of(replica).end_stream(stream, now_ns());
  } catch (const Error& error) {
    output_failed(replica, error.what());
  }
}

void Supervisor::output_failed(Replica& replica, const std::string& error) {
  // The replica keeps running and its pipe keeps being drained (so it never blocks on a full
  // pipe); what could not be written is lost, and its status says so.
  if (replica.output_lost) return;
  replica.output_lost = true;
  status_of(replica).msg = "output lost: " + error;
  dirty_ = true;
  log_event(name_of(replica) + " output lost: " + error);
}

void Supervisor::on_output(Replica& replica, int32_t stream) {
  int& fd = stream == SORTIE_STREAM_STDOUT ? replica.stdout_fd : replica.stderr_fd;
  if (fd < 0) return;
  char buffer[65536];
  // Bounded so that one chatty replica cannot starve the others; epoll reports the rest.
  for (int round = 0; round < 16; ++round) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // EAGAIN: drained for now
    // Log followers read what this call writes; the end of a stream that wrote nothing (no log
    // file exists) is news to nobody, and waking every waiter for it only costs them CPU.
    if (n > 0 || replica.output) waiters_pending_ = true;
    if (n == 0) {
      end_output(replica, stream);
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      ::close(fd);
      fd = -1;
      return;
    }
    append_output(replica, stream, std::string_view(buffer, static_cast<size_t>(n)));
  }
}

void Supervisor::drain_and_close(Replica& replica, int32_t stream) {
  int& fd = stream == SORTIE_STREAM_STDOUT ? replica.stdout_fd : replica.stderr_fd;
  while (fd >= 0) {
    char buffer[65536];
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      append_output(replica, stream, std::string_view(buffer, static_cast<size_t>(n)));
      continue;
    }
    // EOF, or EAGAIN because a process that left the replica's group still holds the pipe: what
    // it writes from now on is not the replica's output any more.
    end_output(replica, stream);
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    fd = -1;
  }
}

void Supervisor::on_exit(Replica& replica, int wait_status) {
  const pid_t group = replica.pid;
  replica.pid = 0;
  if (replica.kill_at != 0) {
    replica.kill_at = 0;
    arm_kill_timer();  // its stop is over: whatever starts next runs without its deadline
  }
  // Whatever the replica left in its group dies with it, and what it left outside (a setsid(),
  // re-parented to us) too, so nothing outlives its replica or runs beside its retry.
  ::killpg(group, SIGKILL);
  kill_adopted_orphans({"SORTIE_ROLE_NAME=" + request_.roles[replica.role_index].name,
                        "SORTIE_REPLICA_ID=" + std::to_string(launch_of(replica).id)});
  drain_and_close(replica, SORTIE_STREAM_STDOUT);
  drain_and_close(replica, SORTIE_STREAM_STDERR);

  ReplicaStatus& status = status_of(replica);
  const int exit_code =
      WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  status.exit_code = exit_code;
  status.finished_at = now_ns();
  dirty_ = true;
  log_event(name_of(replica) + " exited with code " + std::to_string(exit_code));
  if (ending_state_) {
    status.state =
        state_of(exit_code == 0 ? ProcessFate::kExitedZero : ProcessFate::kStoppedBySortie);
    return;
  }
  if (replica.restart_pending) {
    status.state = state_of(ProcessFate::kNotStarted);
    start_pending_restarts();
    return;
  }
  if (exit_code == 0) {
    status.state = state_of(ProcessFate::kExitedZero);
    return;
  }
  status.state = state_of(ProcessFate::kFailed);
  if (status.msg.empty()) {
    status.msg = WIFEXITED(wait_status)
                     ? "exited with code " + std::to_string(exit_code)
                     : "killed by signal " + std::to_string(WTERMSIG(wait_status));
  }
  handle_failure(replica);
}

void Supervisor::handle_failure(Replica& replica) {
  const RoleLaunch& role = request_.roles[replica.role_index];
  ReplicaStatus& status = status_of(replica);
  switch (role.retry_policy) {
    case RetryPolicy::kReplica:
      if (status.restarts < role.max_retries) {
        ++status.restarts;
        ++app_.status.num_restarts;
        log_event("restarting " + name_of(replica) + " (REPLICA policy)");
        start(replica);
        return;
      }
      break;
    case RetryPolicy::kRole:
    case RetryPolicy::kApplication:
      if (role_restarts_[replica.role_index] < role.max_retries) {
        ++role_restarts_[replica.role_index];
        ++app_.status.num_restarts;
        restart_group(replica, role.retry_policy == RetryPolicy::kApplication);
        return;
      }
      break;
  }
  ending_state_ = AppState::kFailed;
  app_.status.msg = "replica " + name_of(replica) + " failed: " + status.msg;
  log_event(app_.status.msg);
  terminate_running(app_.status.msg);
}

void Supervisor::restart_group(Replica& failed, bool whole_app) {
  log_event(
      "restarting " +
      (whole_app ? std::string("the app") : "role " + request_.roles[failed.role_index].name) +
      " after " + name_of(failed) + " failed");
  for (Replica& replica : replicas_) {
    if (!whole_app && replica.role_index != failed.role_index) continue;
    replica.restart_pending = true;
    if (replica.pid != 0) terminate(replica);
  }
  arm_kill_timer();
  start_pending_restarts();
}

void Supervisor::start_pending_restarts() {
  for (const Replica& replica : replicas_) {
    if (replica.restart_pending && replica.pid != 0) return;  // still stopping
  }
  for (Replica& replica : replicas_) {
    if (!replica.restart_pending) continue;
    replica.restart_pending = false;
    ++status_of(replica).restarts;
    start(replica);
  }
}

void Supervisor::terminate_running(const std::string& reason) {
  for (Replica& replica : replicas_) {
    replica.restart_pending = false;
    if (replica.pid != 0) {
      status_of(replica).msg = "terminated: " + reason;
      terminate(replica);
    }
  }
  arm_kill_timer();
}

void Supervisor::terminate(Replica& replica) {
  ::killpg(replica.pid, SIGTERM);
  const double grace = request_.cancel_grace_period_s;
  if (grace <= 0) {
    ::killpg(replica.pid, SIGKILL);
  } else if (replica.kill_at == 0) {
    // Stopped again (cancelled while a restart stops it), it keeps the deadline of its first
    // SIGTERM.
    replica.kill_at = monotonic_ns() + static_cast<int64_t>(std::ceil(grace * 1e9));
  }
}

void Supervisor::arm_kill_timer() {
  // Set from the deadlines of the processes being stopped, and only theirs: a replica that was
  // restarted, or never stopped, has none, so no stop's timer reaches it.
  int64_t next = 0;
  for (const Replica& replica : replicas_) {
    if (replica.kill_at != 0 && (next == 0 || replica.kill_at < next)) next = replica.kill_at;
  }
  itimerspec spec{};  // all zero: disarmed
  spec.it_value.tv_sec = static_cast<time_t>(next / 1000000000);
  spec.it_value.tv_nsec = static_cast<long>(next % 1000000000);
  ::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void Supervisor::kill_overdue() {
  const int64_t now = monotonic_ns();
  for (Replica& replica : replicas_) {
    if (replica.kill_at == 0 || replica.kill_at > now) continue;
    ::killpg(replica.pid, SIGKILL);
    replica.kill_at = 0;  // nothing left to wait for: it exits now
  }
  arm_kill_timer();
}

size_t Supervisor::open_pipe_ends() const {
  size_t open = 0;
  for (const Replica& replica : replicas_) {
    open += (replica.stdout_fd >= 0 ? 1 : 0) + (replica.stderr_fd >= 0 ? 1 : 0);
  }
  return open;
}

bool Supervisor::any_running() const {
  for (const Replica& replica : replicas_) {
    if (replica.pid != 0) return true;
  }
  return false;
}

void Supervisor::update_app_state() {
  const AppState before = app_.status.state;
  if (any_running()) {
    app_.status.state = AppState::kRunning;
  } else if (ending_state_) {
    for (RoleStatus& role : app_.status.roles) {
      for (ReplicaStatus& replica : role.replicas) {
        if (!is_terminal(replica.state)) replica.state = state_of(ProcessFate::kStoppedBySortie);
      }
    }
    app_.status.state = *ending_state_;
  } else {
    bool all_succeeded = true;
    for (const RoleStatus& role : app_.status.roles) {
      for (const ReplicaStatus& replica : role.replicas) {
        all_succeeded = all_succeeded && replica.state == AppState::kSucceeded;
      }
    }
    if (all_succeeded) app_.status.state = AppState::kSucceeded;
  }
  if (app_.status.state != before) dirty_ = true;
}

bool Supervisor::write_state() {
  if (!state_writer_.write(to_state_json(app_))) {
    if (state_unwritten_ != state_writer_.error()) {
      log_event("cannot record the app's state, retrying: " + state_writer_.error());
    }
    state_unwritten_ = state_writer_.error();
    dirty_ = true;
    return false;
  }
  if (!state_unwritten_.empty()) log_event("recorded the app's state again");
  state_unwritten_.clear();
  dirty_ = false;
  waiters_pending_ = true;
  return true;
}

void Supervisor::retire_runtime_files() {
  // After the waiters were woken: moving the final state to disk is not on their path. A final
  // state that could not be recorded stays where readers look for it.
  if (dirty_) return;
  if (!retire_runtime_dir(request_.app_dir, runtime_dir_)) {
    log_event("cannot copy the final state into " + request_.app_dir + "; it stays in " +
              runtime_dir_);
  }
}

void Supervisor::write_final_state() {
  // Exiting unrecorded would leave readers to say "died unexpectedly" and lose the real end, so
  // a failed write (a full disk) is retried for up to an hour; but once the app's directory is
  // gone nobody can read the state any more, and waiting would only leave a process behind.
  constexpr int kAttempts = 3600;
  const auto gone = [](const std::string& dir) {
    return ::access(dir.c_str(), F_OK) != 0 && errno == ENOENT;
  };
  for (int attempt = 0; attempt < kAttempts && !write_state(); ++attempt) {
    if (gone(request_.app_dir)) return;
    if (runtime_dir_ != request_.app_dir && gone(runtime_dir_)) {
      log_event("the runtime directory " + runtime_dir_ +
                " vanished; recording in the app directory");
      runtime_dir_ = fall_back_to_app_dir(request_.app_dir);
      state_writer_.move_to(runtime_dir_);
      continue;
    }
    ::sleep(1);
  }
}

}  // namespace sortie::local
