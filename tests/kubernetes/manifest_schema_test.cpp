// Every kind of manifest the scheduler writes passes the official schemas (kubernetes-models and
// kubernetes-types for built-in kinds, the Volcano CRD, the JobSet CRD's envelope), checked by
// validate/validate_manifests.mjs; a broken manifest is rejected by the same check.
#include <gtest/gtest.h>
#include <rapidjson/pointer.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "fake_cluster.hpp"
#include "json.hpp"
#include "kubernetes_scheduler.hpp"

namespace sortie::kubernetes {
namespace {

using testing::TempDir;

struct Case {
  const char* name;
  const char* app;
  const char* cfg;
};

const Case kCases[] = {
    {"single-role",
     R"({"name":"echo","roles":[{"name":"echo","image":"alpine:3","entrypoint":"echo","args":["hi"]}]})",
     R"({"namespace":"default"})"},
    {"distributed",
     R"j({"name":"ddp","roles":[
       {"name":"trainer","image":"ghcr.io/acme/train:1","entrypoint":"torchrun","num_replicas":4,
        "args":["--nnodes=${num_replicas}","--node_rank=${replica_id}","--rdzv_endpoint=${rank0_host}:29500"],
        "env":{"RANK":"${replica_id}","MASTER":"$(SORTIE_RANK0_HOST)"},"port_map":{"rdzv":29500},
        "max_retries":2,"retry_policy":"REPLICA"},
       {"name":"ps","image":"ghcr.io/acme/ps:1","entrypoint":"ps-server","num_replicas":2}]})j",
     R"({"namespace":"team-a"})"},
    {"gpu",
     R"({"name":"gpu","roles":[{"name":"train","image":"nvcr.io/nvidia/pytorch:24.01-py3",
        "entrypoint":"python","num_replicas":2,"resource":{"cpu":7.5,"gpu":8,"memMB":491520,
        "capabilities":{"node.kubernetes.io/instance-type":"p4d.24xlarge"},
        "devices":{"vpc.amazonaws.com/efa":4}}}]})",
     R"({"namespace":"team-a"})"},
    {"mounts",
     R"({"name":"mounts","roles":[{"name":"r","image":"busybox","entrypoint":"ls","mounts":[
       {"type":"bind","src":"/data","dst":"/in","read_only":true},
       {"type":"volume","src":"ckpt","dst":"/ckpt"},
       {"type":"volume","src":"pvc:shared","dst":"/shared","read_only":true},
       {"type":"volume","src":"configmap:cfg","dst":"/etc/cfg"},
       {"type":"volume","src":"secret:token","dst":"/etc/token"},
       {"type":"device","src":"/dev/fuse"}]}]})",
     R"({"namespace":"team-a"})"},
    {"volcano",
     R"({"name":"vc","roles":[
       {"name":"trainer","image":"i:1","entrypoint":"train","num_replicas":3,"max_retries":3,"min_replicas":2},
       {"name":"eval","image":"i:1","entrypoint":"eval","max_retries":1,"retry_policy":"REPLICA",
        "resource":{"cpu":1,"gpu":1,"memMB":2048},"port_map":{"http":8080}}]})",
     R"({"namespace":"team-a","gang_scheduler":"volcano","queue":"research","priority_class":"high"})"},
    {"jobset",
     R"({"name":"js","roles":[
       {"name":"driver","image":"i:1","entrypoint":"drive","max_retries":2},
       {"name":"workers","image":"i:1","entrypoint":"work","num_replicas":8,"max_retries":2,
        "resource":{"cpu":4,"memMB":8192}}]})",
     R"({"namespace":"team-a","gang_scheduler":"jobset","queue":"lq"})"},
    {"full-options",
     R"({"name":"full","roles":[{"name":"main","image":"registry.acme/main:2","entrypoint":"run",
        "num_replicas":2,"env":{"A":"1"},"resource":{"cpu":0.25,"memMB":256},
        "mounts":[{"type":"volume","src":"data","dst":"/data"}],"port_map":{"metrics":9090}}]})",
     R"({"namespace":"ml-prod","service_account":"runner","priority_class":"batch-low",
         "image_pull_secrets":["regcred","mirror"],"queue":"team-queue"})"},
    {"image-repo",
     R"({"name":"built","roles":[{"name":"main","image":"sortie-xm/trainer:46f4f448",
        "entrypoint":"python","num_replicas":2,"metadata":{"sortie.local_image":true}}]})",
     R"({"namespace":"team-a","image_repo":"127.0.0.1:5000/team"})"},
};

class KubernetesManifestSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("SORTIE_K8S_VALIDATORS_DIR");
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::string base = dir != nullptr     ? dir
                             : cache != nullptr ? std::string(cache) + "/sortie/k8s-validators"
                                                : std::string(home != nullptr ? home : "/root") +
                                                      "/.cache/sortie/k8s-validators";
    modules_ = base + "/node_modules";
    std::string missing;
    if (std::system("node --version >/dev/null 2>&1") != 0) missing = "node is not installed";
    if (!std::filesystem::exists(modules_ + "/kubernetes-models")) {
      missing = "the validator packages are not in " + modules_ +
                " (run packaging/engines/k8s_validators.sh)";
    }
    if (!missing.empty()) {
      if (testing::in_ci()) FAIL() << missing << " (CI=true)";
      GTEST_SKIP() << missing;
    }
  }

  // Runs the validator on files; returns its exit status and fills output.
  int validate(const std::vector<std::string>& files, std::string* output) {
    const std::string validate_dir = SORTIE_TEST_SOURCE_DIR "/validate";
    std::string command = "node " + validate_dir + "/validate_manifests.mjs --modules " + modules_ +
                          " --volcano-crd " + validate_dir + "/batch.volcano.sh_jobs.yaml" +
                          " --jobset-schema " + validate_dir + "/jobset_v1alpha2.schema.json";
    for (const std::string& file : files) command += " " + file;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
      output->append(buffer, n);
    const int status = ::pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // The manifests dryrun() writes for a case, one file each.
  std::vector<std::string> write_manifests(const Case& c) {
    KubernetesScheduler scheduler(
        R"({"schema":"sortie.scheduler_config/1","scheduler":"kubernetes","session":"ci","state_dir":")" +
        out_.path() + "\"}");
    const std::string dry = scheduler.dryrun(
        std::string(R"({"schema":"sortie.dryrun_input/1","app":)") + c.app + R"(,"cfg":)" + c.cfg +
        R"(,"app_id":")" + c.name + R"(-x1y2z3w4v5","session":"ci"})");
    rapidjson::Document doc;
    doc.Parse(dry.c_str());
    std::vector<std::string> files;
    for (const Json& object : doc["request"]["objects"].GetArray()) {
      files.push_back(out_.path() + "/" + c.name + "-" + std::to_string(files.size()) + ".json");
      testing::write_file(files.back(), plugins_common::to_pretty_json_text(object["manifest"]));
    }
    return files;
  }

  std::string modules_;
  TempDir out_;
};

struct ValidationRun {
  std::vector<std::string> generated;  // the manifests of every case, as written
  std::vector<std::string> mutated;    // a generated Volcano Job and JobSet, one field misspelt
  std::string broken = SORTIE_TEST_SOURCE_DIR "/validate/broken_job.json";
  std::string output;
};

class KubernetesManifestSchemaRun : public KubernetesManifestSchemaTest {
 protected:
  ValidationRun run() {
    ValidationRun run;
    for (const Case& c : kCases) {
      for (const std::string& file : write_manifests(c)) run.generated.push_back(file);
      const std::string name = c.name;
      if (name != "volcano" && name != "jobset") continue;
      const std::string file = out_.path() + "/" + name + "-mutated.json";
      std::string text = testing::read_file(write_manifests(c).front());
      text.replace(text.find("\"restartPolicy\""), 15, "\"restartPolcy\"");
      testing::write_file(file, text);
      run.mutated.push_back(file);
    }
    std::vector<std::string> files = run.generated;
    files.insert(files.end(), run.mutated.begin(), run.mutated.end());
    files.push_back(run.broken);
    EXPECT_EQ(validate(files, &run.output), 1) << "the broken and mutated files must fail";
    return run;
  }

  // The validator's report of one file: its VALID/INVALID line and the errors below it.
  static std::string report_of(const std::string& output, const std::string& file) {
    const size_t at = output.find(" " + file + "#");
    if (at == std::string::npos) return "";
    const size_t line = output.rfind('\n', at) + 1;
    size_t end = output.find('\n', at);
    while (end != std::string::npos && output.compare(end + 1, 4, "  - ") == 0) {
      end = output.find('\n', end + 1);
    }
    return output.substr(line, end - line);
  }
};

// One test, as one validator run (a run per ctest process would triple the time).
TEST_F(KubernetesManifestSchemaRun, GeneratedManifestsPassAndBrokenOnesAreRejected) {
  const ValidationRun& r = run();
  // Every mode and app shape passes the official schemas.
  EXPECT_EQ(r.generated.size(), 15u);  // Jobs and Services of 6 apps, a Volcano Job, a JobSet
  for (const std::string& file : r.generated) {
    EXPECT_EQ(report_of(r.output, file).rfind("VALID   ", 0), 0u) << report_of(r.output, file);
  }
  for (const char* kind : {"batch/v1 Job", "v1 Service", "batch.volcano.sh/v1alpha1 Job",
                           "jobset.x-k8s.io/v1alpha2 JobSet"}) {
    EXPECT_NE(r.output.find(kind), std::string::npos) << kind << " was not checked:\n" << r.output;
  }

  // A deliberately broken manifest is rejected by the same check.
  const std::string report = report_of(r.output, r.broken);
  EXPECT_EQ(report.rfind("INVALID ", 0), 0u) << report;
  EXPECT_NE(report.find("'\"imagee\"' does not exist in type 'Container'"), std::string::npos)
      << report;
  EXPECT_NE(report.find("/spec/backoffLimit type"), std::string::npos) << report;
  EXPECT_NE(report.find("/spec/template/spec/restartPolicy enum"), std::string::npos) << report;

  // So is an unknown field in our own Volcano Job and JobSet (inside their pod templates).
  ASSERT_EQ(r.mutated.size(), 2u);
  for (const std::string& file : r.mutated) {
    const std::string mutated = report_of(r.output, file);
    EXPECT_EQ(mutated.rfind("INVALID ", 0), 0u) << mutated;
    EXPECT_NE(mutated.find("restartPolcy"), std::string::npos) << mutated;
  }
}

}  // namespace
}  // namespace sortie::kubernetes
