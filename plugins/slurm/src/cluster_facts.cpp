#include "cluster_facts.hpp"

#include <sstream>

#include "slurm_command.hpp"

namespace sortie::slurm {

bool memory_is_consumable(const SlurmTools& tools) {
  std::istringstream config(checked_output({tools.scontrol, "show", "config"}));
  for (std::string line; std::getline(config, line);) {
    if (line.rfind("SelectTypeParameters", 0) == 0) {
      return line.find("MEMORY") != std::string::npos || line.find("Memory") != std::string::npos;
    }
  }
  return false;
}

int64_t max_array_size(const SlurmTools& tools) {
  std::istringstream config(checked_output({tools.scontrol, "show", "config"}));
  for (std::string line; std::getline(config, line);) {
    // "MaxArraySize            = 1001"
    if (line.rfind("MaxArraySize", 0) == 0 && line.find('=') != std::string::npos) {
      return std::stoll(line.substr(line.find('=') + 1));
    }
  }
  return 1001;  // Slurm's default
}

int64_t usable_nodes(const SlurmTools& tools, const std::string& partition) {
  // One node per line (-N) with its state; the partition's name has '*' when it is the default.
  std::istringstream nodes(checked_output({tools.sinfo, "-h", "-N", "-o", "%N|%P|%t"}));
  int64_t count = 0;
  std::string previous;
  for (std::string line; std::getline(nodes, line);) {
    std::istringstream fields(line);
    std::string node;
    std::string node_partition;
    std::string state;
    std::getline(fields, node, '|');
    std::getline(fields, node_partition, '|');
    std::getline(fields, state, '|');
    const bool is_default = !node_partition.empty() && node_partition.back() == '*';
    if (is_default) node_partition.pop_back();
    const bool wanted = partition.empty() ? is_default : node_partition == partition;
    const bool usable =
        state.find("down") == std::string::npos && state.find("drain") == std::string::npos;
    if (wanted && usable && node != previous) ++count;
    previous = node;
  }
  return count;
}

}  // namespace sortie::slurm
