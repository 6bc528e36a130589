// File: sortie/xm/resources.hpp
//
// XManager's resource vocabulary (sortie/xm.hpp JobRequirements) seen from the core: which
// family an accelerator belongs to, and the per-replica Resource of the application model.
#ifndef SORTIE_XM_RESOURCES_HPP
#define SORTIE_XM_RESOURCES_HPP

#include <sortie/model/model.hpp>
#include <sortie/xm.hpp>
#include <string_view>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm {

// kLocalGpu: "local_gpu"; kGpu: p4, t4, l4, ..., gb300; kTpu: tpu_v2 ... tpu_v7x.
enum class AcceleratorFamily { kNone, kLocalGpu, kGpu, kTpu };
// From a lower-case accelerator name as JobRequirements::accelerator holds it.
AcceleratorFamily accelerator_family(std::string_view accelerator);

// One replica's share: cpu -> cpu, ram -> mem_mb (rounded up to whole MiB), local_gpu and GPU
// counts -> gpu (a multi-host topology such as v100=4x2 gives 4 per replica). TPUs leave gpu
// unset: schedulers map them from the requirements themselves. Disk has no Resource field and
// is left out; executors read JobRequirements::disk_bytes directly.
Resource to_resource(const JobRequirements& requirements);

}  // namespace sortie::xm
#pragma GCC visibility pop

#endif  // SORTIE_XM_RESOURCES_HPP
