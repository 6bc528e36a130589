// File: core/plugin_host/plugin_helper.cpp
#include "plugin_helper.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sortie/model/error.hpp>
#include <stdexcept>
#include <string>
#include <thread>

#include "plugin_wire.hpp"

extern char** environ;

namespace sortie::plugin_host::detail {
namespace {

using std::chrono::milliseconds;

// How long a helper whose channel closed may take to finish dying before it is killed.
constexpr milliseconds kExitGrace{2000};

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string signal_text(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  const char* description = ::sigdescr_np(signal);
  std::string text =
      abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
  if (description != nullptr) text += std::string(" (") + description + ")";
  return text;
}

std::string seconds_text(milliseconds duration) {
  std::string text = std::to_string(duration.count() / 1000);
  if (const auto rest = duration.count() % 1000; rest != 0) {
    std::string fraction = std::to_string(1000 + rest).substr(1);
    while (fraction.back() == '0') fraction.pop_back();
    text += "." + fraction;
  }
  return text + " s";
}

// Waits up to `grace` for `pid` to end; true once reaped into `status`.
bool reap_within(pid_t pid, int pidfd, milliseconds grace, int& status) {
  const auto deadline = HelperProcess::Clock::now() + grace;
  while (true) {
    const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
    if (reaped == pid || (reaped < 0 && errno != EINTR)) return reaped == pid;
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - HelperProcess::Clock::now());
    if (left.count() <= 0) return false;
    if (pidfd >= 0) {
      pollfd fd{pidfd, POLLIN, 0};
      ::poll(&fd, 1, static_cast<int>(left.count()));
    } else {
      std::this_thread::sleep_for(std::min(left, milliseconds(5)));
    }
  }
}

}  // namespace

HelperProcess::HelperProcess(const std::string& helper_path) {
  if (::access(helper_path.c_str(), X_OK) != 0) {
    throw Error::failed_precondition(
        "cannot run the plugin in a helper process: " + helper_path + " is " +
        (errno == ENOENT ? "missing"
                         : "not executable (" + std::string(std::strerror(errno)) + ")") +
        "; reinstall sortie");
  }
  int channel[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
    throw Error::resource_exhausted(std::string("cannot create the plugin helper's channel: ") +
                                    std::strerror(errno));
  }
  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(channel[0]);
    ::close(channel[1]);
    throw Error::resource_exhausted(std::string("cannot create the plugin helper's stdout pipe: ") +
                                    std::strerror(error));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // stdout first: the channel's target, fd 3, may be the pipe's own descriptor.
  posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, channel[1], kHelperChannelFd);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so a terminal's ^C reaches the host only; the host forwards it
  // (ISO-6). Signal state is reset so the host's handlers and mask do not leak into plugins.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string program = helper_path;
  std::string parent_flag = "--parent";
  std::string parent = std::to_string(::getpid());
  char* argv[] = {program.data(), parent_flag.data(), parent.data(), nullptr};
  const int spawned =
      ::posix_spawn(&pid_, helper_path.c_str(), &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(channel[1]);
  ::close(output[1]);
  if (spawned != 0) {
    ::close(channel[0]);
    ::close(output[0]);
    throw Error::failed_precondition("cannot start the plugin helper " + helper_path + ": " +
                                     std::strerror(spawned) + "; reinstall sortie");
  }
  channel_ = channel[0];
  stdout_ = output[0];
  set_nonblocking(channel_);
  set_nonblocking(stdout_);
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
}

HelperProcess::~HelperProcess() {
  if (!gone_) finish(/*kill_now=*/false);
}

void HelperProcess::drain_stdout(std::string& text) {
  char chunk[4096];
  while (stdout_ >= 0) {
    const ssize_t n = ::read(stdout_, chunk, sizeof(chunk));
    if (n > 0) {
      text.append(chunk, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n == 0) {  // nobody holds the write end any more
        ::close(stdout_);
        stdout_ = -1;
      }
      return;
    }
  }
}

std::string HelperProcess::finish(bool kill_now) {
  ::close(channel_);  // a live helper reads EOF and exits
  channel_ = -1;
  int status = 0;
  if (kill_now || !reap_within(pid_, pidfd_, kExitGrace, status)) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (pidfd_ >= 0) ::close(pidfd_);
  if (stdout_ >= 0) ::close(stdout_);
  pidfd_ = stdout_ = -1;
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status) && !kill_now) return "died of " + signal_text(WTERMSIG(status));
  return "was killed";
}

HelperProcess::Outcome HelperProcess::fail(sortie_status status, const std::string& failure) {
  gone_ = Outcome{std::nullopt, status, "the plugin's process is gone: " + failure, ""};
  return Outcome{std::nullopt, status, failure, ""};
}

void HelperProcess::stop(sortie_status status, const std::string& failure) {
  if (gone_) return;
  finish(/*kill_now=*/true);
  fail(status, failure);
}

HelperProcess::Outcome HelperProcess::exchange(const std::string& request, const char* call,
                                               std::optional<milliseconds> timeout) {
  if (gone_) return *gone_;
  const std::string framed = wire_frame(request);
  const std::optional<Clock::time_point> deadline =
      timeout ? std::optional(Clock::now() + *timeout) : std::nullopt;
  size_t written = 0;
  std::string received;
  std::string stdout_text;
  const std::string who = "the plugin's process (pid " + std::to_string(pid_) + ")";
  const auto died = [&] {
    const std::string how = finish(/*kill_now=*/false);
    std::string failure = who + " " + how + " during " + call;
    if (how.rfind("exited", 0) == 0) failure += "; a plugin must never call exit (ABI-11)";
    Outcome outcome = fail(SORTIE_UNAVAILABLE, failure);
    outcome.stdout_text = std::move(stdout_text);
    return outcome;
  };
  while (true) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left = std::chrono::ceil<milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0) {
        finish(/*kill_now=*/true);
        Outcome outcome = fail(SORTIE_DEADLINE_EXCEEDED,
                               "the plugin did not answer " + std::string(call) + " within " +
                                   seconds_text(*timeout) + ", so " + who + " was stopped");
        outcome.stdout_text = std::move(stdout_text);
        return outcome;
      }
      timeout_ms = static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
    }
    pollfd fds[3] = {
        {channel_, static_cast<short>(POLLIN | (written < framed.size() ? POLLOUT : 0)), 0},
        {stdout_, POLLIN, 0},
        {pidfd_, POLLIN, 0}};
    const int ready = ::poll(fds, pidfd_ >= 0 ? 3 : 2, timeout_ms);
    if (ready < 0) {
      if (errno != EINTR) return died();
      // A signal interrupted the host: interrupt the helper's serving thread as it would have
      // interrupted an in-process plugin (ISO-6).
      ::syscall(SYS_tgkill, pid_, pid_, SIGINT);
      continue;
    }
    if ((fds[1].revents & (POLLIN | POLLHUP)) != 0) drain_stdout(stdout_text);
    if ((fds[0].revents & POLLOUT) != 0) {
      const ssize_t n = ::send(channel_, framed.data() + written, framed.size() - written,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return died();
    }
    const bool helper_ended = pidfd_ >= 0 && (fds[2].revents & POLLIN) != 0;
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0 && !helper_ended) continue;
    bool closed = false;
    char chunk[65536];
    while (true) {
      const ssize_t n = ::recv(channel_, chunk, sizeof(chunk), MSG_DONTWAIT);
      if (n > 0) {
        received.append(chunk, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        closed = n == 0 || errno != EAGAIN;
        break;
      }
    }
    std::optional<std::string> reply;
    try {
      reply = take_wire_message(received);
    } catch (const std::length_error& e) {
      finish(/*kill_now=*/true);
      return fail(SORTIE_INTERNAL, who + " sent a corrupted reply to " + call + " (" + e.what() +
                                       ") and was stopped");
    }
    if (reply) {
      drain_stdout(stdout_text);  // everything written before the reply is in the pipe by now
      Outcome outcome;
      outcome.reply = std::move(reply);
      outcome.stdout_text = std::move(stdout_text);
      return outcome;
    }
    if (closed || helper_ended) return died();
  }
}

}  // namespace sortie::plugin_host::detail
