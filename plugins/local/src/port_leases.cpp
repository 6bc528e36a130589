#include "port_leases.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>

#include "file_util.hpp"

namespace sortie::local {
namespace {

constexpr const char* kMacro = "${free_port}";
constexpr int kTries = 64;

struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// A port nothing on this host listens on or is bound to now (all addresses).
uint16_t unbound_port() {
  const Descriptor socket{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (socket.fd < 0) throw_errno("${free_port}: cannot create a socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof(address);
  if (::bind(socket.fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(socket.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw_errno("${free_port}: cannot bind a socket to a free port");
  }
  return ntohs(address.sin_port);
}

bool held_by_live_app(const std::string& lease_path, const AppRegistry& registry) {
  std::string holder;
  try {
    holder = read_file(lease_path);
  } catch (const Error& error) {
    if (error.code() == Code::kNotFound) return false;
    throw;
  }
  try {
    return !is_terminal(registry.load_status_from_dir(holder).status.state);
  } catch (const Error&) {
    return false;  // its directory is gone
  }
}

}  // namespace

bool uses_free_port(const LaunchRequest& request) {
  for (const RoleLaunch& role : request.roles) {
    for (const ReplicaLaunch& replica : role.replicas) {
      for (const std::string& arg : replica.argv) {
        if (arg.find(kMacro) != std::string::npos) return true;
      }
      for (const auto& entry : replica.env) {
        if (entry.second.find(kMacro) != std::string::npos) return true;
      }
    }
  }
  return false;
}

void substitute_free_port(LaunchRequest& request, uint16_t port) {
  MacroValues macros;
  macros.set("free_port", std::to_string(port));
  for (RoleLaunch& role : request.roles) {
    for (ReplicaLaunch& replica : role.replicas) {
      for (std::string& arg : replica.argv) arg = macros.apply(arg);
      for (auto& entry : replica.env) entry.second = macros.apply(entry.second);
    }
  }
}

uint16_t lease_free_port(const std::string& state_dir, const std::string& app_dir,
                         const AppRegistry& registry) {
  const std::string ports_dir = state_dir + "/ports";
  make_directories(ports_dir);
  const Descriptor lock{::open(ports_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (lock.fd < 0 || ::flock(lock.fd, LOCK_EX) != 0) {
    throw_errno("${free_port}: cannot lock '" + ports_dir + "'");
  }
  for (int attempt = 0; attempt < kTries; ++attempt) {
    const uint16_t port = unbound_port();
    const std::string lease_path = ports_dir + "/" + std::to_string(port);
    if (held_by_live_app(lease_path, registry)) continue;  // leased, not yet listening
    write_file_atomically(lease_path, app_dir);
    return port;
  }
  throw Error::resource_exhausted("${free_port}: " + std::to_string(kTries) +
                                  " ports the kernel offered were all leased to live apps in '" +
                                  ports_dir + "'; end some apps or give the port explicitly");
}

}  // namespace sortie::local
