// File: sortie/core/xm_resources.hpp
//
// XManager's resource vocabulary (sortie/xm.hpp JobRequirements) seen from the core: which
// family an accelerator belongs to, and the per-replica Resource of the application model.
#ifndef SORTIE_CORE_XM_RESOURCES_HPP
#define SORTIE_CORE_XM_RESOURCES_HPP

#include <sortie/core/model.hpp>
#include <sortie/xm.hpp>
#include <string_view>

namespace sortie::core {

// kLocalGpu: "local_gpu"; kGpu: p4, t4, l4, ..., gb300; kTpu: tpu_v2 ... tpu_v7x.
enum class AcceleratorFamily { kNone, kLocalGpu, kGpu, kTpu };
// From a lower-case accelerator name as JobRequirements::accelerator holds it.
AcceleratorFamily accelerator_family(std::string_view accelerator);

// One replica's share: cpu -> cpu, ram -> mem_mb (rounded up to whole MiB), local_gpu and GPU
// counts -> gpu (a multi-host topology such as v100=4x2 gives 4 per replica). TPUs leave gpu
// unset: schedulers map them from the requirements themselves. Disk has no Resource field and
// is left out; executors read JobRequirements::disk_bytes directly.
Resource to_resource(const xm::JobRequirements& requirements);

}  // namespace sortie::core

#endif  // SORTIE_CORE_XM_RESOURCES_HPP
