// ${free_port} on a local scheduler (docs/payloads.md P-12.1): each app that mentions it gets a
// TCP port of this host that was free when chosen and that no live app of the scheduler holds.
// A lease is the file <state_dir>/ports/<port> naming the app directory that holds the port; it
// counts while that app is not terminal, so leases need no cleanup when apps end.
#ifndef SORTIE_LOCAL_PORT_LEASES_HPP
#define SORTIE_LOCAL_PORT_LEASES_HPP

#include <cstdint>
#include <string>

#include "app_registry.hpp"
#include "launch_request.hpp"

namespace sortie::local {

// True when an argument or env value of some replica mentions ${free_port}.
bool uses_free_port(const LaunchRequest& request);

// Replaces ${free_port} in every replica's arguments and env values.
void substitute_free_port(LaunchRequest& request, uint16_t port);

// Chooses a port (the kernel's pick for a socket bound to port 0, released at once) that no live
// app's lease names, and leases it to `app_dir`. Leases are taken under a lock on the ports
// directory, so concurrent submissions never take one port. Throws RESOURCE_EXHAUSTED when no
// such port turns up after many tries.
uint16_t lease_free_port(const std::string& state_dir, const std::string& app_dir,
                         const AppRegistry& registry);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_PORT_LEASES_HPP
