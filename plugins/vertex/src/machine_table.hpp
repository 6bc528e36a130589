// Which Vertex AI machine a role runs on: its resource request (cpu, memMB, gpu) plus an
// accelerator kind, count and TPU topology map to a MachineSpec (machine type, accelerator enum,
// accelerator count, tpuTopology) by the tables of docs/vertex-scheduler.md. Combinations Vertex
// AI does not offer are refused here rather than by the service after submission.
#ifndef SORTIE_VERTEX_MACHINE_TABLE_HPP
#define SORTIE_VERTEX_MACHINE_TABLE_HPP

#include <cstdint>
#include <string>
#include <string_view>

namespace sortie::vertex {

struct MachineRequest {
  double cpu = -1;             // vCPUs; -1 = unset
  int64_t mem_mb = -1;         // MiB; -1 = unset
  int gpu = -1;                // resource.gpu; -1 = unset
  std::string accelerator;     // "a100", "tpu_v3", a Vertex enum such as "NVIDIA_L4"; "" = none
  int accelerator_count = -1;  // -1 = from gpu, the topology or the kind's default
  std::string tpu_topology;    // "4x4"; "" = from the count
  std::string machine_type;    // explicit machine type; "" = chosen from the tables
};

struct MachineSpec {
  std::string machine_type;
  std::string accelerator_type;  // a Vertex AcceleratorType symbol; "" = no accelerator
  int accelerator_count = 0;
  std::string tpu_topology;  // "" = not sent
  bool is_tpu = false;
};

// Throws INVALID_ARGUMENT starting with `what` (e.g. "role 'trainer'") for an unknown accelerator
// or a shape Vertex AI does not offer, listing what would work.
MachineSpec select_machine(const MachineRequest& request, std::string_view what);

// The accelerator names select_machine() knows, comma-separated (for help texts).
std::string accelerator_names();

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_MACHINE_TABLE_HPP
