// Every kind of body the vertex scheduler produces passes Google's own schemas (protos.json of
// npm @google-cloud/aiplatform and the Discovery document excerpt), checked by
// tests/vertex/validate/validate_custom_job.py; a broken body is rejected by the same check.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/wait.h>

#include "vertex_test_support.hpp"

namespace sortie::vertex::testing {
namespace {

constexpr const char* kCfg = R"({"project":"my-project","location":"us-central1"})";

std::string gpu_role(const char* accelerator, int gpus, int cpu = -1) {
  return std::string(
             R"([{"name":"trainer","image":"us-docker.pkg.dev/p/r/t:1","entrypoint":"python",)"
             R"("args":["-m","train"],"resource":{"cpu":)") +
         std::to_string(cpu) + R"(,"gpu":)" + std::to_string(gpus) +
         R"(,"memMB":-1},"metadata":{"vertex.accelerator":")" + accelerator + R"("}}])";
}

const std::vector<std::pair<std::string, std::string>>& cases() {
  static const std::vector<std::pair<std::string, std::string>> all = [] {
    std::vector<std::pair<std::string, std::string>> list;
    const std::string cfg = kCfg;
    list.emplace_back(
        dryrun_input("cpu-app",
                     R"([{"name":"main","image":"gcr.io/p/app:1","entrypoint":"python",
                          "args":["train.py","--epochs=3"],"env":{"A":"1"},
                          "resource":{"cpu":8,"gpu":0,"memMB":30000}}])",
                     cfg),
        "cpu");
    for (const auto& [accelerator, gpus] :
         std::vector<std::pair<const char*, int>>{{"t4", 1},
                                                  {"p4", 2},
                                                  {"p100", 4},
                                                  {"v100", 8},
                                                  {"a100", 2},
                                                  {"a100_80gb", 4},
                                                  {"l4", 1},
                                                  {"h100", 8},
                                                  {"h100_mega", 8},
                                                  {"h200", 8},
                                                  {"b200", 8}}) {
      list.emplace_back(dryrun_input("gpu-app", gpu_role(accelerator, gpus), cfg),
                        std::string("gpu ") + accelerator);
    }
    const std::string tpu =
        R"([{"name":"trainer","image":"gcr.io/p/jax:1","entrypoint":"python","args":["t.py"]}])";
    list.emplace_back(
        dryrun_input("tpu-app", tpu,
                     R"({"project":"p","accelerator":"tpu_v2","accelerator_count":8})"),
        "tpu_v2 x8");
    list.emplace_back(
        dryrun_input("tpu-app", tpu,
                     R"({"project":"p","accelerator":"tpu_v3","tpu_topology":"4x4"})"),
        "tpu_v3 4x4");
    list.emplace_back(
        dryrun_input("tpu-app", tpu,
                     R"({"project":"p","accelerator":"tpu_v4","accelerator_count":16})"),
        "tpu_v4 16 chips");
    list.emplace_back(
        dryrun_input("tpu-app", tpu,
                     R"({"project":"p","accelerator":"TPU_V5_LITEPOD","tpu_topology":"4x4"})"),
        "tpu_v5e 4x4");
    list.emplace_back(
        dryrun_input(
            "multi-pool",
            R"([{"name":"chief","image":"gcr.io/p/t:1","entrypoint":"python","args":["--role=${role_name}"],
                          "resource":{"cpu":4,"gpu":1,"memMB":16000},"metadata":{"vertex.accelerator":"v100"}},
                         {"name":"worker","image":"gcr.io/p/t:1","entrypoint":"python","num_replicas":3,
                          "args":["--world=${num_replicas}"],"resource":{"cpu":12,"gpu":1,"memMB":80000},
                          "metadata":{"vertex.accelerator":"a100"}},
                         {"name":"ps","image":"gcr.io/p/t:1","entrypoint":"python","num_replicas":2,
                          "resource":{"cpu":16,"gpu":0,"memMB":50000}},
                         {"name":"evaluator","image":"gcr.io/p/t:1","entrypoint":"python"}])",
            cfg),
        "multi-pool");
    list.emplace_back(
        dryrun_input(
            "full-app",
            R"([{"name":"trainer","image":"gcr.io/p/t:1","entrypoint":"python","args":["a b","--x=${app_id}"],
                 "env":{"LR":"0.1"},"resource":{"cpu":8,"gpu":2,"memMB":40000}}])",
            R"({"project":"my-project","location":"europe-west4","display_name":"cifar10_1_2",
                "service_account":"xm@my-project.iam.gserviceaccount.com",
                "network":"projects/12345/global/networks/default",
                "labels":{"team":"vision"},"base_output_dir":"gs://bucket/out",
                "tensorboard":"projects/my-project/locations/europe-west4/tensorboards/123",
                "timeout_seconds":86400,"restart_job_on_worker_restart":true,
                "enable_web_access":true,"boot_disk_type":"pd-ssd","boot_disk_size_gb":200,
                "accelerator":"t4"})"),
        "full-option");
    return list;
  }();
  return all;
}

class VertexSchemaValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SORTIE_REQUIRE_ENGINE(have_program("python3"), "python3 is needed to run the validator");
  }

  // Runs the validator on the body; returns its exit status and fills output.
  int validate(const std::string& body, std::string* output) {
    const std::string body_path = dir_.path() + "/body.json";
    const std::string out_path = dir_.path() + "/out.txt";
    write_text(body_path, body);
    const std::string command = "python3 " SORTIE_TEST_SOURCE_DIR
                                "/validate/validate_custom_job.py " +
                                body_path + " >" + out_path + " 2>&1";
    const int status = std::system(command.c_str());
    *output = read_text(out_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::string request_of(const std::string& input) {
    const Result result = scheduler_.dryrun(input);
    EXPECT_EQ(result.status, SORTIE_OK) << result.err;
    const rapidjson::Document dry = parse(result.out);
    return dry.HasMember("request") ? to_text(dry["request"]) : "";
  }

  static std::string to_text(const rapidjson::Value& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    return buffer.GetString();
  }

  TempDir dir_;
  SchedulerClient scheduler_{"vertex", dir_.path()};
};

TEST_F(VertexSchemaValidationTest, EveryProducedBodyPassesBothSchemas) {
  for (const auto& [input, name] : cases()) {
    SCOPED_TRACE(name);
    const std::string body = request_of(input);
    ASSERT_FALSE(body.empty());
    std::string output;
    const int status = validate(body, &output);
    SORTIE_REQUIRE_ENGINE(status != 3,
                          "schema file missing (run "
                          "packaging/engines/vertex_validators.sh): " +
                              output);
    EXPECT_EQ(status, 0) << output << "\nbody: " << body;
    EXPECT_NE(output.find("VALID"), std::string::npos) << output;
  }
}

TEST_F(VertexSchemaValidationTest, BrokenBodiesAreRejected) {
  std::string body = request_of(cases().front().first);
  const std::vector<std::pair<std::string, std::string>> breakages = {
      {"\"imageUri\"", "\"imageURI\""},                  // unknown field, required field missing
      {"\"replicaCount\":\"1\"", "\"replicaCount\":1"},  // int64 as a number
      {"\"machineType\"", "\"machine_type\""},           // snake_case name
  };
  for (const auto& [from, to] : breakages) {
    SCOPED_TRACE(to);
    std::string broken = body;
    const size_t at = broken.find(from);
    ASSERT_NE(at, std::string::npos) << body;
    broken.replace(at, from.size(), to);
    std::string output;
    const int status = validate(broken, &output);
    SORTIE_REQUIRE_ENGINE(status != 3,
                          "schema file missing (run "
                          "packaging/engines/vertex_validators.sh): " +
                              output);
    EXPECT_EQ(status, 1) << output;
    EXPECT_NE(output.find("INVALID"), std::string::npos) << output;
  }
  // A wrong enum symbol and a malformed duration, as a hand-written body.
  std::string output;
  EXPECT_EQ(validate(R"({"displayName":"x","jobSpec":{"workerPoolSpecs":[{"machineSpec":
      {"machineType":"n1-standard-4","acceleratorType":"NVIDIA_TESLA_T5","acceleratorCount":1},
      "replicaCount":"1","containerSpec":{"imageUri":"i"}}],"scheduling":{"timeout":"1h"}}})",
                     &output),
            1)
      << output;
  EXPECT_NE(output.find("NVIDIA_TESLA_T5"), std::string::npos) << output;
  EXPECT_NE(output.find("timeout"), std::string::npos) << output;
}

}  // namespace
}  // namespace sortie::vertex::testing
