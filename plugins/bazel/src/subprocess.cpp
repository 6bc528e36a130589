#include "subprocess.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <sortie/plugin.hpp>

extern char** environ;

namespace sortie::bazel {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error::internal(what + ": " + std::strerror(errno));
}

// A pipe whose ends close themselves; both ends are close-on-exec in the parent.
class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_, O_CLOEXEC) != 0) fail("cannot create a pipe");
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_read() { close_fd(fds_[0]); }
  void close_write() { close_fd(fds_[1]); }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int fds_[2] = {-1, -1};
};

// In the forked child: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const char* program, char* const* argv, const char* directory,
                             int stdout_fd, int stderr_fd) {
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0 || ::dup2(stdout_fd, STDOUT_FILENO) < 0 ||
      ::dup2(stderr_fd, STDERR_FILENO) < 0) {
    ::_exit(127);
  }
  // The host may block or ignore signals on its own threads; the child starts clean.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  if (::chdir(directory) != 0) {
    static const char kMessage[] = "cannot change to the working directory\n";
    [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    ::_exit(127);
  }
  ::execve(program, argv, environ);
  static const char kMessage[] = "cannot execute the program\n";
  [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(127);
}

// Splits what arrives on stderr into lines.
class LineSplitter {
 public:
  explicit LineSplitter(const std::function<void(std::string_view)>& on_line) : on_line_(on_line) {}
  void feed(std::string_view data) {
    pending_.append(data);
    size_t start = 0;
    for (size_t end; (end = pending_.find('\n', start)) != std::string::npos; start = end + 1) {
      on_line_(std::string_view(pending_).substr(start, end - start));
    }
    pending_.erase(0, start);
  }
  void finish() {
    if (!pending_.empty()) on_line_(pending_);
    pending_.clear();
  }

 private:
  const std::function<void(std::string_view)>& on_line_;
  std::string pending_;
};

}  // namespace

ProcessOutput run_process(const std::string& program, const std::vector<std::string>& args,
                          const std::string& directory,
                          const std::function<void(std::string_view)>& on_stderr_line) {
  std::vector<std::string> words{program};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  Pipe out;
  Pipe err;
  const pid_t pid = ::fork();
  if (pid < 0) fail("cannot start " + program);
  if (pid == 0) {
    exec_child(program.c_str(), argv.data(), directory.c_str(), out.write_end(), err.write_end());
  }
  out.close_write();
  err.close_write();

  ProcessOutput result;
  LineSplitter stderr_lines(on_stderr_line);
  pollfd fds[2] = {{out.read_end(), POLLIN, 0}, {err.read_end(), POLLIN, 0}};
  int open_streams = 2;
  char buffer[65536];
  while (open_streams > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      fail("waiting for " + program);
    }
    for (pollfd& fd : fds) {
      if (fd.fd < 0 || fd.revents == 0) continue;
      const ssize_t n = ::read(fd.fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fd.fd = -1;  // poll ignores negative descriptors; the Pipe closes the real one
        --open_streams;
      } else if (&fd == &fds[0]) {
        result.out.append(buffer, static_cast<size_t>(n));
      } else {
        stderr_lines.feed(std::string_view(buffer, static_cast<size_t>(n)));
      }
    }
  }
  stderr_lines.finish();

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail("waiting for " + program);
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace sortie::bazel
