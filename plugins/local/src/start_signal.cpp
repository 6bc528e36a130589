#include "start_signal.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sortie/plugin.hpp>
#include <string>

namespace sortie::local {

bool await_start_signal() {
  ::fcntl(kStartSignalFd, F_SETFD, FD_CLOEXEC);  // never the replicas'
  char byte = 0;
  ssize_t n;
  do {
    n = ::read(kStartSignalFd, &byte, 1);
  } while (n < 0 && errno == EINTR);
  ::close(kStartSignalFd);
  return n == 1;
}

StartSignal::~StartSignal() {
  if (fd_ >= 0) ::close(fd_);
}

void StartSignal::go() {
  // A socket rather than a pipe: MSG_NOSIGNAL, so a starter that died cannot SIGPIPE the host.
  ssize_t n;
  do {
    n = ::send(fd_, "1", 1, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  const int error = errno;
  ::close(fd_);
  fd_ = -1;
  if (n != 1) {
    throw Error::unavailable(std::string("local scheduler: the supervisor's starter exited before "
                                         "it was told to start (") +
                             std::strerror(error) + "); see supervisor.log");
  }
}

}  // namespace sortie::local
