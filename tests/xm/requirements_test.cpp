// XManager's JobRequirements (anchors xmanager-FEATURES.md §3) from name -> text, and the
// per-replica Resource the core derives from it.
#include <gtest/gtest.h>

#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>
#include <sortie/xm/resources.hpp>
#include <string>
#include <utility>
#include <vector>

namespace sortie::xm {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

JobRequirements parse(const Entries& entries) {
  return JobRequirements::parse(entries, "exp.yaml: executors.gpu.requirements");
}

std::string parse_error(const Entries& entries) {
  try {
    parse(entries);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), SORTIE_INVALID_ARGUMENT);
    return e.what();
  }
  ADD_FAILURE() << "parse succeeded";
  return "";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

TEST(RequirementsTest, CpuRamDiskAndLocation) {
  const JobRequirements r =
      parse({{"cpu", "2.5"}, {"ram", "17179869184"}, {"disk", "100GB"}, {"location", "us-east1"}});
  EXPECT_EQ(r.cpu, 2.5);
  EXPECT_EQ(r.ram_bytes, 17179869184LL);
  EXPECT_EQ(r.disk_bytes, 100000000000LL);
  EXPECT_EQ(r.location, "us-east1");
  EXPECT_TRUE(r.accelerator.empty());
  EXPECT_EQ(r.accelerator_count, 0);
  EXPECT_FALSE(r.replicas.has_value());
}

TEST(RequirementsTest, BinaryAndDecimalUnits) {
  const std::vector<std::pair<std::string, int64_t>> cases = {
      {"1KiB", 1024},           {"4GiB", 4LL << 30},
      {"1.5 MiB", 1572864},     {"2TiB", 2LL << 40},
      {"1PiB", 1LL << 50},      {"3KB", 3000},
      {"512MB", 512000000},     {"1GB", 1000000000},
      {"2TB", 2000000000000LL}, {"1PB", 1000000000000000LL},
      {"16gib", 16LL << 30},    {"0.5", 1},  // fractions round up to a whole byte
  };
  for (const auto& [text, bytes] : cases) {
    EXPECT_EQ(parse({{"memory", text}}).ram_bytes, bytes) << text;
  }
}

TEST(RequirementsTest, NamesAreCaseInsensitiveWithXManagerAliases) {
  const JobRequirements r = parse({{"CPU", "4"}, {"Memory", "1GiB"}, {"EPHEMERAL_STORAGE", "1KB"}});
  EXPECT_EQ(r.cpu, 4);
  EXPECT_EQ(r.ram_bytes, 1LL << 30);
  EXPECT_EQ(r.disk_bytes, 1000);
  EXPECT_EQ(parse({{"V100", "2"}}).accelerator, "v100");
}

TEST(RequirementsTest, AcceleratorCount) {
  const JobRequirements r = parse({{"a100_80gib", "8"}});
  EXPECT_EQ(r.accelerator, "a100_80gib");
  EXPECT_EQ(r.accelerator_count, 8);
  EXPECT_TRUE(r.topology.empty());
  EXPECT_FALSE(r.replicas.has_value());
}

TEST(RequirementsTest, EveryXManagerAcceleratorIsKnown) {
  for (const std::string name :
       {"local_gpu",  "p4",     "t4",     "l4",      "l4_24th", "p100",    "v100",   "a100",
        "a100_80gib", "h100",   "h200",   "b200",    "b300",    "gb200",   "gb300",  "b40_48th",
        "tpu_v2",     "tpu_v3", "tpu_v4", "tpu_v5e", "tpu_v5p", "tpu_v6e", "tpu_v7x"}) {
    const JobRequirements r = parse({{name, "1"}});
    EXPECT_EQ(r.accelerator, name);
    EXPECT_EQ(r.accelerator_count, 1);
  }
}

TEST(RequirementsTest, TopologyCountIsTheProduct) {
  const JobRequirements tpu = parse({{"tpu_v4", "2x3x5"}});
  EXPECT_EQ(tpu.accelerator_count, 30);
  EXPECT_EQ(tpu.topology, "2x3x5");
  EXPECT_FALSE(tpu.replicas.has_value());  // TPUs infer no replicas

  const JobRequirements twisted = parse({{"tpu_v5p", "4x4_twisted"}});
  EXPECT_EQ(twisted.accelerator_count, 16);
  EXPECT_EQ(twisted.topology, "4x4_twisted");
  EXPECT_EQ(parse({{"tpu_v3", "2x2_untwisted"}}).accelerator_count, 4);
}

TEST(RequirementsTest, MultiHostGpuTopologyInfersReplicas) {
  const JobRequirements r = parse({{"v100", "4x2"}});
  EXPECT_EQ(r.accelerator_count, 8);
  EXPECT_EQ(r.topology, "4x2");
  EXPECT_EQ(r.replicas, 2);
  EXPECT_EQ(parse({{"gb200", "4x18x2"}}).replicas, 36);
  EXPECT_EQ(parse({{"replicas", "2"}, {"v100", "4x2"}}).replicas, 2);  // agreeing is fine
  EXPECT_FALSE(parse({{"b40_48th", "4x2"}}).replicas.has_value());     // XManager's exception
  EXPECT_FALSE(parse({{"local_gpu", "2x2"}}).replicas.has_value());
}

TEST(RequirementsTest, ExplicitReplicas) {
  EXPECT_EQ(parse({{"replicas", "3"}, {"t4", "1"}}).replicas, 3);
}

TEST(RequirementsTest, ConflictingReplicasFail) {
  const std::string message = parse_error({{"v100", "4x2"}, {"replicas", "3"}});
  EXPECT_TRUE(starts_with(message, "exp.yaml: executors.gpu.requirements.replicas: ")) << message;
  EXPECT_NE(message.find("runs 2 replicas"), std::string::npos) << message;
}

TEST(RequirementsTest, UnknownNameSuggestsTheClosest) {
  const std::string message = parse_error({{"v10", "1"}});
  EXPECT_TRUE(starts_with(message, "exp.yaml: executors.gpu.requirements.v10: unknown resource"))
      << message;
  EXPECT_NE(message.find("did you mean 'v100'"), std::string::npos) << message;
}

TEST(RequirementsTest, SecondAcceleratorFails) {
  const std::string message = parse_error({{"v100", "1"}, {"tpu_v3", "2x2"}});
  EXPECT_TRUE(starts_with(message, "exp.yaml: executors.gpu.requirements.tpu_v3: ")) << message;
  EXPECT_NE(message.find("v100 is already set"), std::string::npos) << message;
}

TEST(RequirementsTest, SameResourceTwiceFails) {
  const std::string message = parse_error({{"ram", "1GiB"}, {"memory", "2GiB"}});
  EXPECT_TRUE(starts_with(message, "exp.yaml: executors.gpu.requirements.memory: given twice"))
      << message;
  EXPECT_NE(message.find("'ram'"), std::string::npos) << message;
  EXPECT_TRUE(starts_with(parse_error({{"cpu", "1"}, {"CPU", "2"}}),
                          "exp.yaml: executors.gpu.requirements.CPU: given twice"));
}

TEST(RequirementsTest, BadValuesNameTheField) {
  const std::vector<std::pair<Entries, std::string>> cases = {
      {{{"cpu", "two"}}, "cpu"},
      {{{"cpu", "-1"}}, "cpu"},
      {{{"cpu", "0"}}, "cpu"},
      {{{"cpu", "2x2"}}, "cpu"},
      {{{"ram", "4GiBs"}}, "ram"},
      {{{"ram", "lots"}}, "ram"},
      {{{"ram", "0"}}, "ram"},
      {{{"disk", "1e30PiB"}}, "disk"},
      {{{"t4", "two"}}, "t4"},
      {{{"t4", "0"}}, "t4"},
      {{{"t4", "2x0"}}, "t4"},
      {{{"tpu_v4", "4x"}}, "tpu_v4"},
      {{{"tpu_v4", "4x4_bent"}}, "tpu_v4"},
      {{{"t4", "1.5"}}, "t4"},
      {{{"replicas", "0"}}, "replicas"},
      {{{"replicas", "1.5"}}, "replicas"},
      {{{"location", " "}}, "location"},
  };
  for (const auto& [entries, field] : cases) {
    const std::string message = parse_error(entries);
    EXPECT_TRUE(starts_with(message, "exp.yaml: executors.gpu.requirements." + field + ": "))
        << message;
  }
}

TEST(RequirementsTest, EmptyWhereNamesOnlyTheField) {
  try {
    JobRequirements::parse({{"cpu", "x"}}, "");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_TRUE(starts_with(e.what(), "cpu: expected")) << e.what();
  }
}

TEST(ResourceMappingTest, CpuMemoryAndGpuPerReplica) {
  const Resource resource = xm::to_resource(parse({{"cpu", "2"}, {"ram", "1500MB"}, {"t4", "2"}}));
  EXPECT_EQ(resource.cpu, 2);
  EXPECT_EQ(resource.mem_mb, 1431);  // 1.5e9 bytes = 1430.5 MiB, rounded up
  EXPECT_EQ(resource.gpu, 2);
  EXPECT_TRUE(resource.capabilities.empty());
}

TEST(ResourceMappingTest, UnsetFieldsStayUnset) {
  const Resource resource = xm::to_resource(parse({{"disk", "10GiB"}}));
  EXPECT_EQ(write_resource(resource), write_resource(Resource{}));  // disk has no Resource field
}

TEST(ResourceMappingTest, LocalGpuAndMultiHostGpu) {
  EXPECT_EQ(xm::to_resource(parse({{"local_gpu", "1"}})).gpu, 1);
  EXPECT_EQ(xm::to_resource(parse({{"local_gpu", "2x2"}})).gpu, 4);
  EXPECT_EQ(xm::to_resource(parse({{"v100", "4x2"}})).gpu, 4);  // 2 replicas of 4
  EXPECT_EQ(xm::to_resource(parse({{"ram", "1GiB"}})).mem_mb, 1024);
}

TEST(ResourceMappingTest, TpusLeaveGpuUnset) {
  EXPECT_EQ(xm::to_resource(parse({{"tpu_v4", "2x2x1"}})).gpu, -1);
}

TEST(ResourceMappingTest, AcceleratorFamilies) {
  EXPECT_EQ(xm::accelerator_family(""), xm::AcceleratorFamily::kNone);
  EXPECT_EQ(xm::accelerator_family("cpu"), xm::AcceleratorFamily::kNone);
  EXPECT_EQ(xm::accelerator_family("local_gpu"), xm::AcceleratorFamily::kLocalGpu);
  EXPECT_EQ(xm::accelerator_family("h100"), xm::AcceleratorFamily::kGpu);
  EXPECT_EQ(xm::accelerator_family("tpu_v5e"), xm::AcceleratorFamily::kTpu);
}

}  // namespace
}  // namespace sortie::xm
