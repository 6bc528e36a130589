#include "machine_table.hpp"

#include <gtest/gtest.h>

#include <sortie/plugin.hpp>

// Requests are written with designated initializers; the members they leave out keep their
// declared defaults, which is the point, so GCC's warning about them does not apply.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sortie::vertex {
namespace {

constexpr int64_t kGiB = 1024;  // in MiB

MachineSpec select(MachineRequest request) { return select_machine(request, "role 'r'"); }

// The message of the INVALID_ARGUMENT select_machine throws; "" when it does not throw.
std::string refusal(const MachineRequest& request) {
  try {
    select_machine(request, "role 'r'");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "select_machine accepted the request";
  return "";
}

TEST(VertexMachineTableTest, CpuAndMemoryPickTheN1ShapeWithLeastMemoryThatFits) {
  // XManager's cpu_ram_to_machine_type cases (vertex_test.py).
  EXPECT_EQ(select({}).machine_type, "n1-standard-4");
  EXPECT_EQ(select({.cpu = 16, .mem_mb = 60 * kGiB}).machine_type, "n1-standard-16");
  EXPECT_EQ(select({.cpu = 1, .mem_mb = 415 * kGiB}).machine_type, "n1-highmem-64");
  EXPECT_EQ(select({.cpu = 63}).machine_type, "n1-highcpu-64");
  EXPECT_EQ(select({.cpu = 20, .mem_mb = 40 * kGiB}).machine_type, "n1-highcpu-64");
  EXPECT_EQ(select({.cpu = 1, .mem_mb = 1}).machine_type, "n1-highmem-2");
  const MachineSpec cpu_only = select({.cpu = 4, .mem_mb = 8 * kGiB});
  EXPECT_EQ(cpu_only.accelerator_type, "");
  EXPECT_EQ(cpu_only.accelerator_count, 0);
  EXPECT_NE(refusal({.cpu = 200}).find("no N1 machine holds 200 cpu"), std::string::npos);
}

TEST(VertexMachineTableTest, N1GpusKeepTheCpuMemoryRuleAndAllowedCounts) {
  const MachineSpec t4 = select({.cpu = 1, .mem_mb = kGiB, .gpu = 2, .accelerator = "t4"});
  EXPECT_EQ(t4.machine_type, "n1-highmem-2");
  EXPECT_EQ(t4.accelerator_type, "NVIDIA_TESLA_T4");
  EXPECT_EQ(t4.accelerator_count, 2);
  EXPECT_EQ(select({.gpu = 8, .accelerator = "v100"}).accelerator_type, "NVIDIA_TESLA_V100");
  EXPECT_EQ(select({.accelerator = "P100"}).accelerator_count, 1);
  EXPECT_EQ(select({.accelerator = "NVIDIA_TESLA_P4"}).accelerator_type, "NVIDIA_TESLA_P4");
  EXPECT_NE(refusal({.gpu = 8, .accelerator = "t4"}).find("takes 1, 2 or 4 x t4, not 8"),
            std::string::npos);
}

TEST(VertexMachineTableTest, AcceleratorOptimisedFamiliesMatchTheGpuCountExactly) {
  EXPECT_EQ(select({.gpu = 2, .accelerator = "a100"}).machine_type, "a2-highgpu-2g");
  EXPECT_EQ(select({.gpu = 16, .accelerator = "a100"}).machine_type, "a2-megagpu-16g");
  // XManager issue #37: A100 80GB needs a2-ultragpu machines and the NVIDIA_A100_80GB enum.
  const MachineSpec a100_80 = select({.gpu = 1, .accelerator = "a100_80gib"});
  EXPECT_EQ(a100_80.machine_type, "a2-ultragpu-1g");
  EXPECT_EQ(a100_80.accelerator_type, "NVIDIA_A100_80GB");
  EXPECT_EQ(select({.gpu = 8, .accelerator = "h100"}).machine_type, "a3-highgpu-8g");
  EXPECT_EQ(select({.gpu = 8, .accelerator = "h100"}).accelerator_type, "NVIDIA_H100_80GB");
  EXPECT_EQ(select({.gpu = 8, .accelerator = "h100_mega"}).machine_type, "a3-megagpu-8g");
  EXPECT_EQ(select({.gpu = 8, .accelerator = "h200"}).machine_type, "a3-ultragpu-8g");
  EXPECT_EQ(select({.gpu = 8, .accelerator = "b200"}).accelerator_type, "NVIDIA_B200");
  // XManager picked a2-highgpu-4g for 3 GPUs, which the service rejects.
  const std::string three = refusal({.gpu = 3, .accelerator = "a100"});
  EXPECT_NE(three.find("no machine with 3 x a100"), std::string::npos) << three;
  EXPECT_NE(three.find("1, 2, 4, 8 or 16"), std::string::npos) << three;
  const std::string too_big = refusal({.cpu = 64, .gpu = 1, .accelerator = "a100"});
  EXPECT_NE(too_big.find("a2-highgpu-1g (12 vCPU, 85 GiB)"), std::string::npos) << too_big;
}

TEST(VertexMachineTableTest, L4PicksTheSmallestG2ShapeWithTheExactGpuCount) {
  EXPECT_EQ(select({.gpu = 1, .accelerator = "l4"}).machine_type, "g2-standard-4");
  EXPECT_EQ(select({.cpu = 8, .gpu = 1, .accelerator = "l4_24th"}).machine_type, "g2-standard-8");
  EXPECT_EQ(select({.cpu = 20, .gpu = 1, .accelerator = "l4"}).machine_type, "g2-standard-32");
  EXPECT_EQ(select({.gpu = 2, .accelerator = "l4"}).machine_type, "g2-standard-24");
  EXPECT_EQ(select({.gpu = 8, .accelerator = "NVIDIA_L4"}).machine_type, "g2-standard-96");
  EXPECT_NE(refusal({.cpu = 40, .gpu = 1, .accelerator = "l4"}).find("does not fit"),
            std::string::npos);
}

TEST(VertexMachineTableTest, TpusUseSlicesByCountOrTopology) {
  const MachineSpec v3 = select({.accelerator = "tpu_v3"});
  EXPECT_EQ(v3.machine_type, "cloud-tpu");
  EXPECT_EQ(v3.accelerator_type, "TPU_V3");
  EXPECT_EQ(v3.accelerator_count, 8);
  EXPECT_EQ(v3.tpu_topology, "");
  EXPECT_TRUE(v3.is_tpu);
  const MachineSpec pod = select({.accelerator = "tpu_v3", .accelerator_count = 32});
  EXPECT_EQ(pod.tpu_topology, "4x4");
  EXPECT_EQ(pod.accelerator_count, 32);
  EXPECT_EQ(select({.accelerator = "tpu_v2", .tpu_topology = "8x8"}).accelerator_count, 128);
  const MachineSpec v5e = select({.accelerator = "tpu_v5e", .accelerator_count = 16});
  EXPECT_EQ(v5e.machine_type, "ct5lp-hightpu-4t");
  EXPECT_EQ(v5e.accelerator_type, "TPU_V5_LITEPOD");
  EXPECT_EQ(v5e.accelerator_count, 4);
  EXPECT_EQ(v5e.tpu_topology, "4x4");
  EXPECT_EQ(select({.accelerator = "tpu_v4", .tpu_topology = "2x2x2"}).accelerator_type,
            "TPU_V4_POD");
  const std::string mismatch =
      refusal({.accelerator = "tpu_v3", .accelerator_count = 32, .tpu_topology = "8x8"});
  EXPECT_NE(mismatch.find("no slice of 32 TPU cores with topology 8x8"), std::string::npos)
      << mismatch;
  EXPECT_NE(refusal({.accelerator = "tpu_v2", .accelerator_count = 1024}).find("8, 32 (4x4)"),
            std::string::npos);
  EXPECT_NE(refusal({.gpu = 8, .accelerator = "tpu_v2"}).find("leave gpu unset"),
            std::string::npos);
}

TEST(VertexMachineTableTest, ImpossibleCombinationsAreRefusedWithWhatWouldWork) {
  const std::string no_kind = refusal({.gpu = 2});
  EXPECT_NE(no_kind.find("role 'r' asks for 2 GPUs but not which kind"), std::string::npos);
  EXPECT_NE(no_kind.find("a100_80gb"), std::string::npos);
  EXPECT_NE(refusal({.accelerator = "k81"}).find("unknown accelerator 'k81'; use one of t4"),
            std::string::npos);
  EXPECT_NE(refusal({.accelerator = "NVIDIA_GB200"}).find("also set machine_type"),
            std::string::npos);
  const MachineSpec gb200 =
      select({.gpu = 4, .accelerator = "NVIDIA_GB200", .machine_type = "a4x-highgpu-4g"});
  EXPECT_EQ(gb200.machine_type, "a4x-highgpu-4g");
  EXPECT_EQ(gb200.accelerator_count, 4);
  EXPECT_NE(refusal({.gpu = 2, .accelerator = "a100", .accelerator_count = 4}).find("contradicts"),
            std::string::npos);
  EXPECT_NE(refusal({.accelerator = "a100", .tpu_topology = "2x2"}).find("is a GPU"),
            std::string::npos);
  EXPECT_NE(refusal({.tpu_topology = "2x2"}).find("without an accelerator"), std::string::npos);
}

TEST(VertexMachineTableTest, AnExplicitMachineTypeWins) {
  const MachineSpec spec =
      select({.gpu = 2, .accelerator = "t4", .machine_type = "n1-standard-32"});
  EXPECT_EQ(spec.machine_type, "n1-standard-32");
  EXPECT_EQ(spec.accelerator_count, 2);
  EXPECT_EQ(select({.machine_type = "e2-standard-8"}).machine_type, "e2-standard-8");
}

}  // namespace
}  // namespace sortie::vertex
