// The named-resource data manifests: registry/manifests/named_resources_{generic,aws}.json (after
// TorchX's torchx/specs/named_resources_{generic,aws}.py) and the example
// examples/named_resources/acme.json. Checks the shape of every entry and TorchX's values.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace {

struct NamedResource {
  double cpu = 0;
  int64_t gpu = 0;
  int64_t mem_mb = 0;
  std::map<std::string, std::string> capabilities;
  std::map<std::string, int64_t> devices;
};

// Reads a manifest, checking every member a data-only named-resource entry needs, and returns
// its resources by name.
std::map<std::string, NamedResource> read_manifest(const std::string& relative_path) {
  const std::string path = std::string(SORTIE_SOURCE_ROOT) + "/" + relative_path;
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::stringstream text;
  text << file.rdbuf();
  rapidjson::Document document;
  document.Parse(text.str().c_str());
  std::map<std::string, NamedResource> resources;
  if (document.HasParseError() || !document.IsObject()) {
    ADD_FAILURE() << path << ": not a JSON object";
    return resources;
  }
  EXPECT_TRUE(document.HasMember("file_format_version") && document["file_format_version"] == "1.0")
      << path;
  EXPECT_FALSE(document.HasMember("plugin")) << path << ": data-only manifests name no library";
  if (!document.HasMember("provides") || !document["provides"].IsArray()) {
    ADD_FAILURE() << path << ": provides must be an array";
    return resources;
  }
  for (const auto& entry : document["provides"].GetArray()) {
    const std::string name =
        entry.HasMember("name") && entry["name"].IsString() ? entry["name"].GetString() : "";
    const std::string where = path + ": " + name;
    EXPECT_FALSE(name.empty()) << path << ": an entry without a name";
    EXPECT_TRUE(entry.HasMember("group") && entry["group"] == "sortie.named_resources") << where;
    EXPECT_TRUE(entry.HasMember("description") && entry["description"].IsString() &&
                entry["description"].GetStringLength() > 0)
        << where;
    if (!entry.HasMember("resource") || !entry["resource"].IsObject()) {
      ADD_FAILURE() << where << ": resource must be an object";
      continue;
    }
    const auto& resource = entry["resource"];
    const bool shaped = resource.HasMember("cpu") && resource["cpu"].IsNumber() &&
                        resource.HasMember("gpu") && resource["gpu"].IsInt64() &&
                        resource.HasMember("memMB") && resource["memMB"].IsInt64() &&
                        resource.HasMember("capabilities") && resource["capabilities"].IsObject() &&
                        resource.HasMember("devices") && resource["devices"].IsObject();
    if (!shaped) {
      ADD_FAILURE() << where << ": resource needs cpu (number), gpu and memMB (integers), "
                    << "capabilities and devices (objects)";
      continue;
    }
    NamedResource parsed;
    parsed.cpu = resource["cpu"].GetDouble();
    parsed.gpu = resource["gpu"].GetInt64();
    parsed.mem_mb = resource["memMB"].GetInt64();
    EXPECT_GT(parsed.cpu, 0) << where;
    EXPECT_GE(parsed.gpu, 0) << where;
    EXPECT_GT(parsed.mem_mb, 0) << where;
    for (const auto& member : resource["capabilities"].GetObject()) {
      EXPECT_TRUE(member.value.IsString()) << where << ": capability " << member.name.GetString();
      if (member.value.IsString()) {
        parsed.capabilities[member.name.GetString()] = member.value.GetString();
      }
    }
    for (const auto& member : resource["devices"].GetObject()) {
      EXPECT_TRUE(member.value.IsInt64() && member.value.GetInt64() > 0)
          << where << ": device " << member.name.GetString();
      if (member.value.IsInt64()) parsed.devices[member.name.GetString()] = member.value.GetInt64();
    }
    EXPECT_TRUE(resources.emplace(name, parsed).second) << where << ": defined twice";
  }
  return resources;
}

constexpr const char* kInstanceType = "node.kubernetes.io/instance-type";
constexpr const char* kEfa = "vpc.amazonaws.com/efa";
constexpr const char* kNeuron = "aws.amazon.com/neurondevice";
// TorchX's AWS GiB: int(1024 * MEM_TAX) with MEM_TAX = 0.96.
constexpr int64_t kAwsGiB = 983;

TEST(NamedResourcesTest, GenericMatchesTorchX) {
  const auto resources = read_manifest("registry/manifests/named_resources_generic.json");
  std::set<std::string> names;
  for (const auto& [name, resource] : resources) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"cpu.nano", "cpu.micro", "cpu.small", "cpu.medium",
                                          "cpu.large", "cpu.xlarge", "gpu.small", "gpu.medium",
                                          "gpu.large", "gpu.xlarge"}));
  const NamedResource& gpu_small = resources.at("gpu.small");
  EXPECT_EQ(gpu_small.cpu, 8);
  EXPECT_EQ(gpu_small.gpu, 1);
  EXPECT_EQ(gpu_small.mem_mb, 32 * 1024);
  EXPECT_EQ(resources.at("gpu.xlarge").gpu, 8);
  EXPECT_EQ(resources.at("gpu.xlarge").mem_mb, 256 * 1024);
  EXPECT_EQ(resources.at("cpu.nano").mem_mb, 512);
  EXPECT_EQ(resources.at("cpu.xlarge").cpu, 8);
  for (const auto& [name, resource] : resources) {
    EXPECT_TRUE(resource.capabilities.empty()) << name;
    EXPECT_TRUE(resource.devices.empty()) << name;
  }
}

TEST(NamedResourcesTest, AwsMatchesTorchX) {
  const auto resources = read_manifest("registry/manifests/named_resources_aws.json");
  EXPECT_EQ(resources.size(), 61u);

  const NamedResource& p3 = resources.at("aws_p3.2xlarge");
  EXPECT_EQ(p3.cpu, 8);
  EXPECT_EQ(p3.gpu, 1);
  EXPECT_EQ(p3.mem_mb, 61 * kAwsGiB);
  EXPECT_EQ(p3.mem_mb, 59963);
  EXPECT_TRUE(p3.devices.empty());

  const NamedResource& p4d = resources.at("aws_p4d.24xlarge");
  EXPECT_EQ(p4d.cpu, 96);
  EXPECT_EQ(p4d.gpu, 8);
  EXPECT_EQ(p4d.mem_mb, 1152 * kAwsGiB);
  EXPECT_EQ(p4d.devices, (std::map<std::string, int64_t>{{kEfa, 4}}));

  const NamedResource& trn1 = resources.at("aws_trn1.32xlarge");
  EXPECT_EQ(trn1.cpu, 128);
  EXPECT_EQ(trn1.gpu, 0);
  EXPECT_EQ(trn1.devices, (std::map<std::string, int64_t>{{kEfa, 8}, {kNeuron, 16}}));
  EXPECT_EQ(resources.at("aws_p5.48xlarge").devices.at(kEfa), 32);
  EXPECT_EQ(resources.at("aws_p6-b300.48xlarge").mem_mb, 4096 * kAwsGiB);
  EXPECT_EQ(resources.at("aws_c5.18xlarge").mem_mb, 142 * kAwsGiB);
  EXPECT_EQ(resources.at("aws_t3.medium").mem_mb, 4 * kAwsGiB);

  for (const auto& [name, resource] : resources) {
    ASSERT_EQ(name.rfind("aws_", 0), 0u) << name;
    // Every AWS resource selects its instance type, named as TorchX names it.
    EXPECT_EQ(resource.capabilities.at(kInstanceType), name.substr(4)) << name;
    EXPECT_EQ(resource.mem_mb % kAwsGiB, 0) << name << ": memory not in TorchX's taxed GiB";
  }
}

TEST(NamedResourcesTest, AcmeExampleIsAValidManifest) {
  const auto resources = read_manifest("examples/named_resources/acme.json");
  ASSERT_TRUE(resources.count("acme.a100x8"));
  ASSERT_TRUE(resources.count("acme.cpu.large"));
  EXPECT_EQ(resources.at("acme.a100x8").gpu, 8);
  for (const auto& [name, resource] : resources) EXPECT_EQ(name.rfind("acme.", 0), 0u) << name;
}

}  // namespace
