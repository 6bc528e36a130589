#include "start_signal.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sortie/plugin.hpp>
#include <string>

namespace sortie::local {
namespace {

// Sends all of `data` on a socket; false when the other end is gone.
bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    // A socket rather than a pipe: MSG_NOSIGNAL, so a peer that died cannot SIGPIPE us.
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool await_start_signal() {
  ::fcntl(kStartSignalFd, F_SETFD, FD_CLOEXEC);  // never the replicas'
  char byte = 0;
  ssize_t n;
  do {
    n = ::read(kStartSignalFd, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) ::close(kStartSignalFd);
  return n == 1;
}

void answer_start_signal(std::string_view failure) {
  // "1" says started; a failure is sent as it is (it never is "1": it starts with its code).
  send_all(kStartSignalFd, failure.empty() ? "1" : failure);
  ::close(kStartSignalFd);
}

Error as_sortie_error(const std::exception& error) {
  const auto* sortie_error = dynamic_cast<const Error*>(&error);
  return sortie_error != nullptr ? *sortie_error : Error::unknown(error.what());
}

std::string encode_start_failure(const Error& error) {
  return std::to_string(error.status()) + " " + error.what();
}

Error decode_start_failure(std::string_view text) {
  int code = static_cast<int>(Code::kUnknown);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), code);
  if (error != std::errc() || code <= 0 || end == text.data() + text.size() || *end != ' ') {
    return Error::unknown(std::string(text));
  }
  return Error(static_cast<sortie_status>(code),
               std::string(end + 1, text.data() + text.size() - end - 1));
}

StartSignal::~StartSignal() {
  if (fd_ >= 0) ::close(fd_);
}

void StartSignal::go() {
  const bool sent = send_all(fd_, "1");
  if (!sent) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    throw Error::unavailable(std::string("local scheduler: the supervisor's starter exited before "
                                         "it was told to start (") +
                             std::strerror(error) + "); see supervisor.log");
  }
}

std::optional<std::string> StartSignal::await_answer() {
  std::string answer;
  char buffer[1024];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd_);
  fd_ = -1;
  if (answer.empty()) return std::nullopt;
  if (answer == "1") return std::string();
  return answer;
}

}  // namespace sortie::local
