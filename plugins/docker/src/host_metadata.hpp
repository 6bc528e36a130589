// What the host's role metadata (docs/payloads.md P-1) asks of local_docker for an XManager job:
// "sortie.host_ports", {"CONTAINER_PORT": HOST_PORT, ...} (DockerOptions(ports={CONTAINER:
// HOST}); each container port one of the role's port_map, HOST_PORT 0 for a port Docker picks),
// and "sortie.job_name", the job's full name (work_unit.get_full_job_name(name)).
#ifndef SORTIE_DOCKER_HOST_METADATA_HPP
#define SORTIE_DOCKER_HOST_METADATA_HPP

#include <cstdint>
#include <map>
#include <sortie/appdef.hpp>
#include <string>

namespace sortie::docker {

// Container port -> host port, published on the host's 127.0.0.1 as `docker run -p
// 127.0.0.1:HOST:CONTAINER` does; empty when the role has no "sortie.host_ports". Refuses
// (INVALID_ARGUMENT naming the role) a value that is not such an object, a port outside the role's
// port_map, and a fixed host port on a role of several replicas (they would all bind it).
std::map<int64_t, int64_t> read_host_ports(const Role& role);

// "sortie.job_name": a name the role's replica 0 answers to on the app network besides its
// host name, so XManager's jobs reach each other by full job name; empty when absent.
std::string job_name_alias(const Role& role);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_HOST_METADATA_HPP
