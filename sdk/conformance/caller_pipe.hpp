// One of the conformance kit's descriptors replaced by a real pipe for the length of a plugin
// call, the way a shell's `x=$(...)` or `| cat` hands sortie its stdout: afterwards the kit sees
// what the call wrote there and whether anything the plugin left running still holds the pipe
// open, which would make the caller's shell wait for the app (ABI-11). A file would show the
// bytes but never the second.
#ifndef SORTIE_CONFORMANCE_CALLER_PIPE_HPP
#define SORTIE_CONFORMANCE_CALLER_PIPE_HPP

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace sortie::conformance {

class CallerPipe {
 public:
  // Puts a pipe's write end at descriptor `fd` (its earlier file kept aside), or, with fd < 0, at
  // a new inheritable descriptor, as a store's database file is.
  explicit CallerPipe(int fd) : fd_(fd) {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) return;
    read_end_ = ends[0];
    if (fd_ >= 0) {
      std::fflush(nullptr);
      saved_ = ::fcntl(fd_, F_DUPFD_CLOEXEC, 10);
      ::dup2(ends[1], fd_);  // dup2 clears close-on-exec: a child inherits it, as it would
      ::close(ends[1]);
    } else {
      write_end_ = ::fcntl(ends[1], F_DUPFD, 10);  // inheritable, like a file the host opened
      ::close(ends[1]);
    }
    reader_ = std::thread([this] { drain(); });
  }
  CallerPipe(const CallerPipe&) = delete;
  CallerPipe& operator=(const CallerPipe&) = delete;
  ~CallerPipe() {
    restore();
    stop_ = true;
    if (reader_.joinable()) reader_.join();
    if (read_end_ >= 0) ::close(read_end_);
  }

  // Gives the descriptor its earlier file back; the kit holds the pipe no more.
  void restore() {
    if (fd_ >= 0 && saved_ >= 0) {
      std::fflush(nullptr);
      ::dup2(saved_, fd_);
      ::close(saved_);
      saved_ = -1;
    }
    if (write_end_ >= 0) {
      ::close(write_end_);
      write_end_ = -1;
    }
  }

  // After restore(): whether every writer closed the pipe within `limit`. The wait ends as soon
  // as they do, so a plugin that keeps nothing costs nothing.
  bool released(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!closed_ && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return closed_;
  }

  std::string written() {
    std::lock_guard<std::mutex> lock(mutex_);
    return written_;
  }

 private:
  void drain() {
    char buffer[4096];
    while (!stop_) {
      pollfd ready{read_end_, POLLIN, 0};
      if (::poll(&ready, 1, 50) <= 0) continue;
      const ssize_t got = ::read(read_end_, buffer, sizeof(buffer));
      if (got <= 0) break;  // every write end is closed
      std::lock_guard<std::mutex> lock(mutex_);
      written_.append(buffer, static_cast<size_t>(got));
    }
    closed_ = !stop_;
  }

  int fd_;
  int saved_ = -1;
  int read_end_ = -1;
  int write_end_ = -1;
  std::thread reader_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> closed_{false};
  std::mutex mutex_;
  std::string written_;
};

}  // namespace sortie::conformance

#endif  // SORTIE_CONFORMANCE_CALLER_PIPE_HPP
