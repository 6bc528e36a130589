#include "machine_table.hpp"

#include <algorithm>
#include <cctype>
#include <sortie/plugin.hpp>
#include <span>
#include <vector>

namespace sortie::vertex {
namespace {

struct HostMachine {
  const char* name;
  int gpus;
  int vcpus;
  double mem_gib;
};

// Compute Engine N1 shapes (vCPUs, GiB), the hosts of T4, P4, P100 and V100 GPUs and of CPU-only
// pools; the same list XManager's cpu_ram_to_machine_type searches.
constexpr HostMachine kN1[] = {
    {"n1-standard-4", 0, 4, 15},    {"n1-standard-8", 0, 8, 30},    {"n1-standard-16", 0, 16, 60},
    {"n1-standard-32", 0, 32, 120}, {"n1-standard-64", 0, 64, 240}, {"n1-standard-96", 0, 96, 360},
    {"n1-highmem-2", 0, 2, 13},     {"n1-highmem-4", 0, 4, 26},     {"n1-highmem-8", 0, 8, 52},
    {"n1-highmem-16", 0, 16, 104},  {"n1-highmem-32", 0, 32, 208},  {"n1-highmem-64", 0, 64, 416},
    {"n1-highmem-96", 0, 96, 624},  {"n1-highcpu-16", 0, 16, 14.4}, {"n1-highcpu-32", 0, 32, 28.8},
    {"n1-highcpu-64", 0, 64, 57.6}, {"n1-highcpu-96", 0, 96, 86.4},
};
constexpr const char* kDefaultMachine = "n1-standard-4";

// Accelerator-optimised families: the GPUs come with the machine, so the count picks it.
constexpr HostMachine kA2High[] = {{"a2-highgpu-1g", 1, 12, 85},
                                   {"a2-highgpu-2g", 2, 24, 170},
                                   {"a2-highgpu-4g", 4, 48, 340},
                                   {"a2-highgpu-8g", 8, 96, 680},
                                   {"a2-megagpu-16g", 16, 96, 1360}};
constexpr HostMachine kA2Ultra[] = {{"a2-ultragpu-1g", 1, 12, 170},
                                    {"a2-ultragpu-2g", 2, 24, 340},
                                    {"a2-ultragpu-4g", 4, 48, 680},
                                    {"a2-ultragpu-8g", 8, 96, 1360}};
constexpr HostMachine kA3High[] = {{"a3-highgpu-1g", 1, 26, 234},
                                   {"a3-highgpu-2g", 2, 52, 468},
                                   {"a3-highgpu-4g", 4, 104, 936},
                                   {"a3-highgpu-8g", 8, 208, 1872}};
constexpr HostMachine kA3Mega[] = {{"a3-megagpu-8g", 8, 208, 1872}};
constexpr HostMachine kA3Ultra[] = {{"a3-ultragpu-8g", 8, 224, 2952}};
constexpr HostMachine kA4High[] = {{"a4-highgpu-8g", 8, 224, 3968}};
constexpr HostMachine kG2[] = {{"g2-standard-4", 1, 4, 16},    {"g2-standard-8", 1, 8, 32},
                               {"g2-standard-12", 1, 12, 48},  {"g2-standard-16", 1, 16, 64},
                               {"g2-standard-32", 1, 32, 128}, {"g2-standard-24", 2, 24, 96},
                               {"g2-standard-48", 4, 48, 192}, {"g2-standard-96", 8, 96, 384}};

// A TPU slice: `count` is TPU cores for v2/v3 (8 per host) and chips for v4/v5e, as the
// accelerator count users give; `per_vm` is what acceleratorCount carries.
struct TpuSlice {
  int count;
  const char* topology;  // "" = a single v2/v3 host, sent without tpuTopology
  const char* machine_type;
  int per_vm;
};

constexpr TpuSlice kTpuV2[] = {{8, "", "cloud-tpu", 8},
                               {32, "4x4", "cloud-tpu", 32},
                               {128, "8x8", "cloud-tpu", 128},
                               {256, "8x16", "cloud-tpu", 256},
                               {512, "16x16", "cloud-tpu", 512}};
constexpr TpuSlice kTpuV3[] = {{8, "", "cloud-tpu", 8},
                               {32, "4x4", "cloud-tpu", 32},
                               {64, "4x8", "cloud-tpu", 64},
                               {128, "8x8", "cloud-tpu", 128},
                               {256, "8x16", "cloud-tpu", 256},
                               {512, "16x16", "cloud-tpu", 512},
                               {1024, "16x32", "cloud-tpu", 1024},
                               {2048, "32x32", "cloud-tpu", 2048}};
constexpr TpuSlice kTpuV4[] = {
    {4, "2x2x1", "ct4p-hightpu-4t", 4},   {8, "2x2x2", "ct4p-hightpu-4t", 4},
    {16, "2x2x4", "ct4p-hightpu-4t", 4},  {32, "2x4x4", "ct4p-hightpu-4t", 4},
    {64, "4x4x4", "ct4p-hightpu-4t", 4},  {128, "4x4x8", "ct4p-hightpu-4t", 4},
    {256, "4x8x8", "ct4p-hightpu-4t", 4}, {512, "8x8x8", "ct4p-hightpu-4t", 4}};
constexpr TpuSlice kTpuV5e[] = {
    {1, "1x1", "ct5lp-hightpu-1t", 1},    {4, "2x2", "ct5lp-hightpu-4t", 4},
    {8, "2x4", "ct5lp-hightpu-8t", 8},    {16, "4x4", "ct5lp-hightpu-4t", 4},
    {32, "4x8", "ct5lp-hightpu-4t", 4},   {64, "8x8", "ct5lp-hightpu-4t", 4},
    {128, "8x16", "ct5lp-hightpu-4t", 4}, {256, "16x16", "ct5lp-hightpu-4t", 4}};

constexpr int kUpTo4[] = {1, 2, 4};
constexpr int kUpTo8[] = {1, 2, 4, 8};

struct Accelerator {
  const char* name;
  const char* vertex_enum;
  std::span<const int> n1_counts;         // GPUs attached to an N1 machine chosen by cpu/memory
  std::span<const HostMachine> machines;  // accelerator-optimised machines
  std::span<const TpuSlice> slices;
  const char* unit;  // "GPU", "TPU core", "TPU chip"
};

const Accelerator kAccelerators[] = {
    {"t4", "NVIDIA_TESLA_T4", kUpTo4, {}, {}, "GPU"},
    {"p4", "NVIDIA_TESLA_P4", kUpTo4, {}, {}, "GPU"},
    {"p100", "NVIDIA_TESLA_P100", kUpTo4, {}, {}, "GPU"},
    {"v100", "NVIDIA_TESLA_V100", kUpTo8, {}, {}, "GPU"},
    {"a100", "NVIDIA_TESLA_A100", {}, kA2High, {}, "GPU"},
    {"a100_80gb", "NVIDIA_A100_80GB", {}, kA2Ultra, {}, "GPU"},
    {"l4", "NVIDIA_L4", {}, kG2, {}, "GPU"},
    {"h100", "NVIDIA_H100_80GB", {}, kA3High, {}, "GPU"},
    {"h100_mega", "NVIDIA_H100_MEGA_80GB", {}, kA3Mega, {}, "GPU"},
    {"h200", "NVIDIA_H200_141GB", {}, kA3Ultra, {}, "GPU"},
    {"b200", "NVIDIA_B200", {}, kA4High, {}, "GPU"},
    {"tpu_v2", "TPU_V2", {}, {}, kTpuV2, "TPU core"},
    {"tpu_v3", "TPU_V3", {}, {}, kTpuV3, "TPU core"},
    {"tpu_v4", "TPU_V4_POD", {}, {}, kTpuV4, "TPU chip"},
    {"tpu_v5e", "TPU_V5_LITEPOD", {}, {}, kTpuV5e, "TPU chip"},
};

// XManager's ResourceType spellings, so its users' names keep working.
constexpr std::pair<const char*, const char*> kAliases[] = {
    {"a100_80gib", "a100_80gb"}, {"l4_24th", "l4"}, {"tpu_v5_litepod", "tpu_v5e"}};

// Accelerator enums Vertex AI knows but this table does not map to machines; accepted together
// with an explicit machine type only.
constexpr const char* kUnmappedEnums[] = {"NVIDIA_GB200", "NVIDIA_RTX_PRO_6000"};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

const Accelerator* find_accelerator(std::string_view name) {
  std::string key = lower(name);
  for (const auto& [alias, target] : kAliases) {
    if (key == alias) key = target;
  }
  for (const Accelerator& accelerator : kAccelerators) {
    if (key == accelerator.name || upper(name) == accelerator.vertex_enum) return &accelerator;
  }
  return nullptr;
}

std::string join_counts(std::span<const int> counts) {
  std::string out;
  for (size_t i = 0; i < counts.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == counts.size() ? " or " : ", ") + std::to_string(counts[i]);
  }
  return out;
}

std::string describe_machine(const HostMachine& machine) {
  std::string mem = std::to_string(machine.mem_gib);
  mem.erase(mem.find_last_not_of('0') + 1);
  if (mem.back() == '.') mem.pop_back();
  return std::string(machine.name) + " (" + std::to_string(machine.vcpus) + " vCPU, " + mem +
         " GiB)";
}

bool fits(const HostMachine& machine, const MachineRequest& request) {
  return machine.vcpus >= request.cpu &&
         machine.mem_gib * 1024.0 >= static_cast<double>(request.mem_mb);
}

std::string requested_text(const MachineRequest& request) {
  std::string text;
  if (request.cpu >= 0) {
    std::string cpu = std::to_string(request.cpu);
    cpu.erase(cpu.find_last_not_of('0') + 1);
    if (cpu.back() == '.') cpu.pop_back();
    text += cpu + " cpu";
  }
  if (request.mem_mb >= 0) {
    text += (text.empty() ? "" : ", ") + std::to_string(request.mem_mb) + " memMB";
  }
  return text;
}

// The N1 shape with the least memory (then fewest vCPUs) that holds the request.
std::string choose_n1(const MachineRequest& request, std::string_view what) {
  if (request.cpu < 0 && request.mem_mb < 0) return kDefaultMachine;
  const HostMachine* best = nullptr;
  for (const HostMachine& machine : kN1) {
    if (!fits(machine, request)) continue;
    if (best == nullptr || machine.mem_gib < best->mem_gib ||
        (machine.mem_gib == best->mem_gib && machine.vcpus < best->vcpus)) {
      best = &machine;
    }
  }
  if (best == nullptr) {
    throw Error(
        Code::kInvalidArgument,
        std::string(what) + ": no N1 machine holds " + requested_text(request) +
            " (the largest are n1-standard-96: 96 vCPU, 360 GiB and n1-highmem-96: 96 "
            "vCPU, 624 GiB); ask for less, or set an accelerator whose machines are larger");
  }
  return best->name;
}

MachineSpec select_fixed_gpu_machine(const Accelerator& accelerator, int count,
                                     const MachineRequest& request, std::string_view what) {
  std::vector<int> counts;
  std::string shapes;
  for (const HostMachine& machine : accelerator.machines) {
    if (std::find(counts.begin(), counts.end(), machine.gpus) == counts.end()) {
      counts.push_back(machine.gpus);
    }
    if (machine.gpus != count) continue;
    shapes += (shapes.empty() ? "" : ", ") + describe_machine(machine);
    if (fits(machine, request)) {
      return MachineSpec{machine.name, accelerator.vertex_enum, count, "", false};
    }
  }
  std::sort(counts.begin(), counts.end());
  if (shapes.empty()) {
    throw Error::invalid_argument(std::string(what) + ": Vertex AI has no machine with " +
                                  std::to_string(count) + " x " + accelerator.name + "; " +
                                  accelerator.name + " comes " + join_counts(counts) +
                                  " per machine, so ask for one of those counts");
  }
  throw Error::invalid_argument(std::string(what) + ": " + requested_text(request) +
                                " does not fit the machines " + "with " + std::to_string(count) +
                                " x " + accelerator.name + ": " + shapes +
                                "; ask for less cpu/memory or more " + accelerator.unit + "s");
}

MachineSpec select_tpu(const Accelerator& accelerator, const MachineRequest& request,
                       std::string_view what) {
  if (request.gpu > 0) {
    throw Error::invalid_argument(std::string(what) + ": resource.gpu is " +
                                  std::to_string(request.gpu) + " but " + accelerator.name +
                                  " is a TPU; give the number of " + accelerator.unit +
                                  "s as accelerator_count (or a tpu_topology) and leave gpu unset");
  }
  std::string options;
  for (const TpuSlice& slice : accelerator.slices) {
    options += (options.empty() ? "" : ", ") + std::to_string(slice.count);
    if (*slice.topology != '\0') options += std::string(" (") + slice.topology + ")";
  }
  const TpuSlice* chosen = nullptr;
  for (const TpuSlice& slice : accelerator.slices) {
    const bool count_matches =
        request.accelerator_count < 0 || request.accelerator_count == slice.count;
    const bool topology_matches = request.tpu_topology.empty() ||
                                  request.tpu_topology == slice.topology ||
                                  (*slice.topology == '\0' && request.tpu_topology == "2x2");
    if (count_matches && topology_matches) {
      chosen = &slice;
      break;
    }
  }
  if (chosen == nullptr) {
    std::string asked;
    if (request.accelerator_count >= 0) {
      asked = std::to_string(request.accelerator_count) + " " + accelerator.unit + "s";
    }
    if (!request.tpu_topology.empty()) {
      asked += (asked.empty() ? "" : " with ") + std::string("topology ") + request.tpu_topology;
    }
    throw Error::invalid_argument(std::string(what) + ": " + accelerator.name +
                                  " has no slice of " + asked + "; Vertex AI offers " +
                                  accelerator.unit + " counts " + options);
  }
  const std::string machine =
      request.machine_type.empty() ? chosen->machine_type : request.machine_type;
  return MachineSpec{machine, accelerator.vertex_enum, chosen->per_vm, chosen->topology, true};
}

}  // namespace

MachineSpec select_machine(const MachineRequest& request, std::string_view what) {
  if (request.accelerator.empty()) {
    if (request.gpu > 0) {
      throw Error::invalid_argument(
          std::string(what) + " asks for " + std::to_string(request.gpu) +
          " GPUs but not which kind; set the accelerator (run option accelerator or "
          "role metadata vertex.accelerator) to one of " +
          accelerator_names());
    }
    if (request.accelerator_count > 0 || !request.tpu_topology.empty()) {
      throw Error::invalid_argument(std::string(what) +
                                    ": an accelerator count or TPU topology is given without "
                                    "an accelerator; set the accelerator too");
    }
    if (!request.machine_type.empty()) return MachineSpec{request.machine_type, "", 0, "", false};
    return MachineSpec{choose_n1(request, what), "", 0, "", false};
  }

  const Accelerator* accelerator = find_accelerator(request.accelerator);
  if (accelerator == nullptr) {
    const std::string symbol = upper(request.accelerator);
    for (const char* known : kUnmappedEnums) {
      if (symbol == known && !request.machine_type.empty()) {
        const int count = request.accelerator_count > 0 ? request.accelerator_count
                          : request.gpu > 0             ? request.gpu
                                                        : 1;
        return MachineSpec{request.machine_type, symbol, count, "", false};
      }
      if (symbol == known) {
        throw Error::invalid_argument(
            std::string(what) + ": accelerator " + symbol +
            " has no machine in sortie's table; also set machine_type (run option or "
            "role metadata vertex.machine_type) to the machine that carries it");
      }
    }
    throw Error::invalid_argument(std::string(what) + ": unknown accelerator '" +
                                  request.accelerator + "'; use one of " + accelerator_names());
  }
  if (!accelerator->slices.empty()) return select_tpu(*accelerator, request, what);

  if (!request.tpu_topology.empty()) {
    throw Error::invalid_argument(std::string(what) + ": tpu_topology '" + request.tpu_topology +
                                  "' is set but " + accelerator->name + " is a GPU; remove it");
  }
  if (request.accelerator_count > 0 && request.gpu > 0 &&
      request.accelerator_count != request.gpu) {
    throw Error::invalid_argument(
        std::string(what) + ": accelerator_count " + std::to_string(request.accelerator_count) +
        " contradicts resource.gpu " + std::to_string(request.gpu) + "; give one of them");
  }
  const int count = request.accelerator_count > 0 ? request.accelerator_count
                    : request.gpu > 0             ? request.gpu
                                                  : 1;
  if (!request.machine_type.empty()) {
    return MachineSpec{request.machine_type, accelerator->vertex_enum, count, "", false};
  }
  if (!accelerator->n1_counts.empty()) {
    if (std::find(accelerator->n1_counts.begin(), accelerator->n1_counts.end(), count) ==
        accelerator->n1_counts.end()) {
      throw Error::invalid_argument(std::string(what) + ": an N1 machine takes " +
                                    join_counts(accelerator->n1_counts) + " x " +
                                    accelerator->name + ", not " + std::to_string(count));
    }
    return MachineSpec{choose_n1(request, what), accelerator->vertex_enum, count, "", false};
  }
  return select_fixed_gpu_machine(*accelerator, count, request, what);
}

std::string accelerator_names() {
  std::string names;
  for (const Accelerator& accelerator : kAccelerators) {
    names += (names.empty() ? "" : ", ") + std::string(accelerator.name);
  }
  return names;
}

}  // namespace sortie::vertex
