// The logs of processes that start_process started, as the LogStream log_open() returns: each
// replica's ".log" read line by line, attributed to its role and replica, and with `follow` read
// on until every selected process has ended. Part of Sortie::plugin_support.
#ifndef SORTIE_PROCESS_LOGS_HPP
#define SORTIE_PROCESS_LOGS_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plugin.hpp"

namespace sortie {

// One replica's process: its role, its number and the `path` it was started at.
struct ReplicaProcess {
  std::string role;
  int64_t replica_id = 0;
  std::string path;
};

// The lines of the replicas `request_json` (sortie.log_request/1) selects. start_process keeps
// one combined, untimed log per process, so a request for one stream, a time window or a tail is
// refused with UNIMPLEMENTED naming `scheduler`; a role none of the replicas has is NOT_FOUND.
std::unique_ptr<LogStream> open_process_logs(const std::vector<ReplicaProcess>& replicas,
                                             std::string_view request_json,
                                             std::string_view scheduler);

}  // namespace sortie

#endif  // SORTIE_PROCESS_LOGS_HPP
