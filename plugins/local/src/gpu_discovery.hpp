// Finds the GPU device ids that auto_set_cuda_visible_devices may hand out.
#ifndef SORTIE_LOCAL_GPU_DISCOVERY_HPP
#define SORTIE_LOCAL_GPU_DISCOVERY_HPP

#include <optional>
#include <string>
#include <vector>

namespace sortie::local {

// In order: `configured` (run option gpu_devices), env SORTIE_GPU_DEVICES (comma list), the
// entries of /proc/driver/nvidia/gpus, the "GPU n:" lines of `nvidia-smi -L`. Empty if none.
std::vector<std::string> discover_gpu_devices(
    const std::optional<std::vector<std::string>>& configured);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_GPU_DISCOVERY_HPP
