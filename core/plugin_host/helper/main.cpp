// File: core/plugin_host/helper/main.cpp
//
// sortie-plugin-host: runs one plugin library on behalf of a sortie host (docs/plugin-policy.md,
// ISO-n). The host starts it with the request channel on fd 3 and stdout on a pipe it watches;
// the helper serves one request at a time until the channel closes, and dies with the host.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "plugin_server.hpp"
#include "plugin_wire.hpp"

namespace {

using sortie::plugin_host::detail::kHelperChannelFd;

void on_interrupt(int) {}  // only there to interrupt the plugin's blocking calls (ISO-6)

bool write_all(int fd, const std::string& data) {
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::send(fd, data.data() + written, data.size() - written, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Die with the host, even if the plugin hangs; then make sure the host is still the parent.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (argc != 3 || std::strcmp(argv[1], "--parent") != 0) {
    std::fprintf(stderr,
                 "usage: sortie-plugin-host --parent PID\n"
                 "Started by sortie to run a plugin in its own process; not for direct use.\n");
    return 2;
  }
  if (std::to_string(::getppid()) != argv[2]) return 1;
  if (::fcntl(kHelperChannelFd, F_SETFD, FD_CLOEXEC) != 0) {
    std::fprintf(stderr, "sortie-plugin-host: fd %d is not open; it is started by sortie only\n",
                 kHelperChannelFd);
    return 2;
  }
  // Unbuffered, so whatever a plugin prints is in the pipe before the reply leaves (ISO-5).
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked wait returns, as it would in the host
  sigaction(SIGINT, &action, nullptr);

  sortie::plugin_host::detail::PluginServer server;
  std::string received;
  char chunk[65536];
  while (true) {
    std::optional<std::string> request;
    try {
      request = sortie::plugin_host::detail::take_wire_message(received);
    } catch (const std::length_error& e) {
      std::fprintf(stderr, "sortie-plugin-host: %s\n", e.what());
      return 2;
    }
    if (request) {
      if (!write_all(kHelperChannelFd,
                     sortie::plugin_host::detail::wire_frame(server.handle(*request)))) {
        return 0;  // the host is gone
      }
      continue;
    }
    const ssize_t n = ::read(kHelperChannelFd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;  // the host closed the channel
    received.append(chunk, static_cast<size_t>(n));
  }
}
