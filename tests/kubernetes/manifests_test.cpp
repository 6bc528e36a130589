// What dryrun() produces for each mode and app shape: names within DNS limits, labels, replica
// identity, resources, mounts, run options, and refusals naming the field.
#include "manifests.hpp"

#include <gtest/gtest.h>
#include <rapidjson/pointer.h>

#include "dns_names.hpp"
#include "fake_cluster.hpp"
#include "kubernetes_scheduler.hpp"

namespace sortie::kubernetes {
namespace {

class KubernetesManifestsTest : public ::testing::Test {
 protected:
  // Dry-runs `app_json` (a sortie.appdef/1) with run options `cfg_json`.
  rapidjson::Document dryrun(const std::string& app_json, const std::string& cfg_json,
                             const std::string& app_id = "trainer-k3x9q2m1zt") {
    KubernetesScheduler scheduler(
        R"({"schema":"sortie.scheduler_config/1","scheduler":"kubernetes","session":"exp","state_dir":")" +
        state_.path() + "\"}");
    const std::string input = R"({"schema":"sortie.dryrun_input/1","app":)" + app_json +
                              R"(,"cfg":)" + cfg_json + R"(,"app_id":")" + app_id +
                              R"(","session":"exp"})";
    rapidjson::Document doc;
    doc.Parse(scheduler.dryrun(input).c_str());
    return doc;
  }

  std::string error_of(const std::string& app_json, const std::string& cfg_json) {
    try {
      dryrun(app_json, cfg_json);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::kInvalidArgument) << e.what();
      return e.what();
    }
    return "";
  }

  static const Json& at(const Json& doc, const char* pointer) {
    const Json* value = rapidjson::Pointer(pointer).Get(doc);
    if (value == nullptr) throw std::runtime_error(std::string("no ") + pointer);
    return *value;
  }
  static std::string text(const Json& doc, const char* pointer) {
    return at(doc, pointer).GetString();
  }
  static std::string env_value(const Json& container, const std::string& name) {
    for (const Json& var : container["env"].GetArray()) {
      if (name == var["name"].GetString()) {
        return var.HasMember("value") ? var["value"].GetString() : "<valueFrom>";
      }
    }
    return "<absent>";
  }

  testing::TempDir state_;
  const std::string cfg_ = R"({"namespace":"team-a"})";
};

constexpr const char* kTwoReplicas = R"j({"name":"trainer","roles":[{"name":"trainer",
  "image":"ghcr.io/acme/train:1","entrypoint":"python","num_replicas":2,
  "args":["-m","train","--rank=${replica_id}","--master=${rank0_host}","$(HOME)"],
  "env":{"WORLD":"${num_replicas}","APP":"${app_id}"},"port_map":{"tb":6006}}]})j";

TEST_F(KubernetesManifestsTest, RoleBecomesIndexedJobWithHeadlessService) {
  const rapidjson::Document doc = dryrun(kTwoReplicas, cfg_);
  EXPECT_EQ(text(doc, "/app_id"), "team-a:trainer-k3x9q2m1zt");
  EXPECT_EQ(at(doc, "/request/objects").Size(), 2u);
  const Json& job = at(doc, "/request/objects/0/manifest");
  EXPECT_EQ(text(doc, "/request/objects/0/collection"), "/apis/batch/v1/namespaces/team-a/jobs");
  EXPECT_EQ(text(job, "/metadata/name"), "trainer-k3x9q2m1zt-trainer");
  EXPECT_EQ(text(job, "/metadata/namespace"), "team-a");
  EXPECT_EQ(text(job, "/spec/completionMode"), "Indexed");
  EXPECT_EQ(at(job, "/spec/completions").GetInt(), 2);
  EXPECT_EQ(at(job, "/spec/parallelism").GetInt(), 2);
  EXPECT_EQ(at(job, "/spec/backoffLimit").GetInt(), 0);
  EXPECT_EQ(text(job, "/spec/template/metadata/labels/sortie.dev~1app"), "trainer-k3x9q2m1zt");
  EXPECT_EQ(text(job, "/spec/template/metadata/labels/sortie.dev~1session"), "exp");
  EXPECT_EQ(text(job, "/spec/template/metadata/labels/sortie.dev~1role"), "trainer");
  EXPECT_EQ(text(job, "/spec/template/spec/restartPolicy"), "Never");
  EXPECT_EQ(text(job, "/spec/template/spec/subdomain"), "trainer-k3x9q2m1zt");
  const Json& container = at(job, "/spec/template/spec/containers/0");
  EXPECT_EQ(text(container, "/command/0"), "python");
  EXPECT_EQ(text(container, "/args/2"), "--rank=$(SORTIE_REPLICA_ID)");
  EXPECT_EQ(text(container, "/args/3"), "--master=trainer-k3x9q2m1zt-trainer-0.trainer-k3x9q2m1zt");
  EXPECT_EQ(text(container, "/args/4"), "$$(HOME)") << "a literal $( must not be expanded";
  EXPECT_EQ(text(container, "/env/0/valueFrom/fieldRef/fieldPath"),
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(env_value(container, "WORLD"), "2");
  EXPECT_EQ(env_value(container, "APP"), "team-a:trainer-k3x9q2m1zt");
  EXPECT_EQ(env_value(container, "SORTIE_RANK0_HOST"),
            "trainer-k3x9q2m1zt-trainer-0.trainer-k3x9q2m1zt");
  EXPECT_EQ(text(container, "/ports/0/name"), "tb");
  EXPECT_EQ(at(container, "/ports/0/containerPort").GetInt(), 6006);

  const Json& service = at(doc, "/request/objects/1/manifest");
  EXPECT_TRUE(at(doc, "/request/objects/1/owned_by_first").GetBool());
  EXPECT_EQ(text(service, "/kind"), "Service");
  EXPECT_EQ(text(service, "/spec/clusterIP"), "None");
  EXPECT_TRUE(at(service, "/spec/publishNotReadyAddresses").GetBool());
  EXPECT_EQ(text(service, "/spec/selector/sortie.dev~1app"), "trainer-k3x9q2m1zt");
  EXPECT_NE(text(doc, "/text").find("# POST /api/v1/namespaces/team-a/services"),
            std::string::npos);
}

TEST_F(KubernetesManifestsTest, LongNamesStayValidHostnamesInEveryMode) {
  const std::string app_id(52, 'a');
  const std::string role = "Very_Long Role Name That Keeps Going And Going";
  const std::string app = R"({"name":"x","roles":[{"name":")" + role +
                          R"(","image":"i","entrypoint":"e","num_replicas":12}]})";
  const rapidjson::Document jobs = dryrun(app, cfg_, app_id + "-0123456789");
  const std::string job = text(jobs, "/request/objects/0/manifest/metadata/name");
  EXPECT_TRUE(is_dns1123_label(job + "-11")) << job;  // the hostname of the last replica
  EXPECT_TRUE(is_dns1035_label(text(jobs, "/request/objects/1/manifest/metadata/name")));

  const rapidjson::Document volcano =
      dryrun(app, R"({"namespace":"team-a","gang_scheduler":"volcano"})", app_id + "-0123456789");
  const std::string vcjob = text(volcano, "/request/objects/0/manifest/metadata/name");
  for (const Json& task : at(volcano, "/request/objects/0/manifest/spec/tasks").GetArray()) {
    const std::string pod = vcjob + "-" + task["name"].GetString() + "-0";
    EXPECT_TRUE(is_dns1123_label(pod)) << pod;
  }
  const rapidjson::Document jobset =
      dryrun(app, R"({"namespace":"team-a","gang_scheduler":"jobset"})", app_id + "-0123456789");
  const std::string pod = text(jobset, "/request/objects/0/manifest/metadata/name") + "-" +
                          text(jobset, "/request/objects/0/manifest/spec/replicatedJobs/0/name") +
                          "-0-11";
  EXPECT_TRUE(is_dns1123_label(pod)) << pod;
}

TEST_F(KubernetesManifestsTest, ResourcesGpusDevicesAndNodeSelectors) {
  const rapidjson::Document doc = dryrun(R"({"name":"g","roles":[{"name":"r","image":"i",
    "entrypoint":"e","resource":{"cpu":1.5,"gpu":2,"memMB":4096,
    "capabilities":{"node.kubernetes.io/instance-type":"p4d.24xlarge"},
    "devices":{"vpc.amazonaws.com/efa":4}}}]})",
                                         cfg_);
  const Json& spec = at(doc, "/request/objects/0/manifest/spec/template/spec");
  for (const char* kind : {"/containers/0/resources/limits", "/containers/0/resources/requests"}) {
    const Json& quantities = at(spec, kind);
    EXPECT_STREQ(quantities["cpu"].GetString(), "1500m");
    EXPECT_STREQ(quantities["memory"].GetString(), "4096Mi");
    EXPECT_STREQ(quantities["nvidia.com/gpu"].GetString(), "2");
    EXPECT_STREQ(quantities["vpc.amazonaws.com/efa"].GetString(), "4");
  }
  EXPECT_EQ(text(spec, "/nodeSelector/node.kubernetes.io~1instance-type"), "p4d.24xlarge");
}

TEST_F(KubernetesManifestsTest, FreePortIsAFixedPortInEveryPod) {
  // Each pod has its own network namespace, so ${free_port} is 29500 (payloads.md P-12.1).
  const rapidjson::Document doc = dryrun(R"({"name":"d","roles":[{"name":"r","image":"i",
    "entrypoint":"e","num_replicas":2,"args":["--rdzv_endpoint=${rank0_host}:${free_port}"],
    "env":{"MASTER_PORT":"${free_port}"}}]})",
                                         cfg_);
  const Json& container = at(doc, "/request/objects/0/manifest/spec/template/spec/containers/0");
  EXPECT_EQ(text(container, "/args/0"),
            "--rdzv_endpoint=trainer-k3x9q2m1zt-r-0.trainer-k3x9q2m1zt:29500");
  EXPECT_EQ(env_value(container, "MASTER_PORT"), "29500");
}

TEST_F(KubernetesManifestsTest, RoleHostNamesEachRolesFirstPodInEveryMode) {
  // ${role_host:ROLE} is that role's replica 0 (TF_CONFIG lists every task, xm_tensorflow).
  const std::string app = R"({"name":"tf","roles":[{"name":"chief","image":"i","entrypoint":"e",
    "env":{"PEER":"${role_host:ps}:2222"}},{"name":"ps","image":"i","entrypoint":"e"}]})";
  const std::pair<const char*, const char*> modes[] = {
      {"none", "trainer-k3x9q2m1zt-ps-0.trainer-k3x9q2m1zt:2222"},
      {"volcano", "trainer-k3x9q2m1zt-ps-0-0.trainer-k3x9q2m1zt:2222"},
      {"jobset", "trainer-k3x9q2m1zt-ps-0-0.trainer-k3x9q2m1zt:2222"}};
  const std::pair<const char*, const char*> containers[] = {
      {"none", "/request/objects/0/manifest/spec/template/spec/containers/0"},
      {"volcano", "/request/objects/0/manifest/spec/tasks/0/template/spec/containers/0"},
      {"jobset",
       "/request/objects/0/manifest/spec/replicatedJobs/0/template/spec/template/spec/"
       "containers/0"}};
  for (size_t i = 0; i < std::size(modes); ++i) {
    const rapidjson::Document doc = dryrun(
        app, std::string(R"({"namespace":"team-a","gang_scheduler":")") + modes[i].first + R"("})");
    EXPECT_EQ(env_value(at(doc, containers[i].second), "PEER"), modes[i].second) << modes[i].first;
  }
}

TEST_F(KubernetesManifestsTest, TheOutputDirIsThePodsOwnEmptyDir) {
  const rapidjson::Document doc = dryrun(R"({"name":"o","output_dir":"/host/out/o-1","roles":[
    {"name":"r","image":"i","entrypoint":"e","args":["${output_dir}/ckpt.pt"]}]})",
                                         cfg_);
  const Json& spec = at(doc, "/request/objects/0/manifest/spec/template/spec");
  EXPECT_EQ(text(spec, "/volumes/1/name"), "sortie-output");
  EXPECT_TRUE(at(spec, "/volumes/1/emptyDir").IsObject());
  const Json& container = at(spec, "/containers/0");
  EXPECT_EQ(text(container, "/volumeMounts/1/name"), "sortie-output");
  EXPECT_EQ(text(container, "/volumeMounts/1/mountPath"), "/sortie/output");
  EXPECT_EQ(text(container, "/args/0"), "/sortie/output/ckpt.pt");
  EXPECT_EQ(env_value(container, "SORTIE_OUTPUT_DIR"), "/sortie/output");
}

TEST_F(KubernetesManifestsTest, MountsBecomeVolumes) {
  const rapidjson::Document doc = dryrun(R"({"name":"m","roles":[{"name":"r","image":"i",
    "entrypoint":"e","mounts":[
      {"type":"bind","src":"/data","dst":"/in","read_only":true},
      {"type":"volume","src":"ckpt-claim","dst":"/ckpt"},
      {"type":"volume","src":"configmap:train-cfg","dst":"/etc/train"},
      {"type":"volume","src":"secret:wandb","dst":"/etc/wandb","read_only":true},
      {"type":"device","src":"/dev/infiniband","dst":"/dev/infiniband"}]}]})",
                                         cfg_);
  const Json& spec = at(doc, "/request/objects/0/manifest/spec/template/spec");
  EXPECT_EQ(text(spec, "/volumes/0/emptyDir/medium"), "Memory");  // /dev/shm
  EXPECT_EQ(text(spec, "/volumes/1/hostPath/path"), "/data");
  EXPECT_EQ(text(spec, "/volumes/2/persistentVolumeClaim/claimName"), "ckpt-claim");
  EXPECT_EQ(text(spec, "/volumes/3/configMap/name"), "train-cfg");
  EXPECT_EQ(text(spec, "/volumes/4/secret/secretName"), "wandb");
  EXPECT_EQ(text(spec, "/volumes/5/hostPath/path"), "/dev/infiniband");
  const Json& container = at(spec, "/containers/0");
  EXPECT_TRUE(at(container, "/volumeMounts/1/readOnly").GetBool());
  EXPECT_EQ(text(container, "/volumeMounts/1/mountPath"), "/in");
  EXPECT_TRUE(at(container, "/securityContext/privileged").GetBool());
  EXPECT_NE(error_of(R"({"name":"m","roles":[{"name":"r","image":"i","entrypoint":"e",
    "mounts":[{"type":"volume","src":"nfs:server","dst":"/x"}]}]})",
                     cfg_)
                .find("expected a PersistentVolumeClaim name, pvc:NAME, configmap:NAME"),
            std::string::npos);
}

TEST_F(KubernetesManifestsTest, RunOptionsReachThePods) {
  const rapidjson::Document doc =
      dryrun(kTwoReplicas,
             R"({"namespace":"ml-prod","service_account":"trainer","priority_class":"high",
          "image_pull_secrets":["regcred"],"queue":"team-queue"})");
  EXPECT_EQ(text(doc, "/app_id"), "ml-prod:trainer-k3x9q2m1zt");
  const Json& job = at(doc, "/request/objects/0/manifest");
  EXPECT_EQ(text(job, "/metadata/labels/kueue.x-k8s.io~1queue-name"), "team-queue");
  EXPECT_EQ(text(job, "/spec/template/spec/serviceAccountName"), "trainer");
  EXPECT_EQ(text(job, "/spec/template/spec/priorityClassName"), "high");
  EXPECT_EQ(text(job, "/spec/template/spec/imagePullSecrets/0/name"), "regcred");
}

TEST_F(KubernetesManifestsTest, VolcanoHasATaskPerReplicaAndRetryPolicies) {
  const rapidjson::Document doc = dryrun(R"({"name":"v","roles":[
    {"name":"trainer","image":"i","entrypoint":"e","num_replicas":2,"max_retries":3},
    {"name":"ps","image":"i","entrypoint":"e","max_retries":1,"retry_policy":"REPLICA",
     "args":["${replica_id}"]}]})",
                                         R"({"namespace":"team-a","gang_scheduler":"volcano"})");
  EXPECT_EQ(text(doc, "/app_id"), "volcano:team-a:trainer-k3x9q2m1zt");
  const Json& job = at(doc, "/request/objects/0/manifest");
  EXPECT_EQ(text(job, "/apiVersion"), "batch.volcano.sh/v1alpha1");
  EXPECT_EQ(text(job, "/spec/schedulerName"), "volcano");
  EXPECT_EQ(text(job, "/spec/queue"), "default");
  EXPECT_EQ(at(job, "/spec/minAvailable").GetInt(), 3);
  EXPECT_EQ(at(job, "/spec/maxRetry").GetInt(), 1);
  EXPECT_EQ(at(job, "/spec/tasks").Size(), 3u);
  EXPECT_EQ(text(job, "/spec/tasks/1/name"), "trainer-1");
  EXPECT_EQ(text(job, "/spec/tasks/0/policies/1/action"), "RestartJob");
  EXPECT_EQ(text(job, "/spec/tasks/2/policies/0/action"), "RestartTask");
  EXPECT_EQ(text(job, "/spec/tasks/2/template/spec/containers/0/args/0"), "0");
  EXPECT_EQ(text(job, "/spec/tasks/1/template/metadata/labels/sortie.dev~1replica-id"), "1");
}

TEST_F(KubernetesManifestsTest, JobSetHasAReplicatedJobPerRole) {
  const rapidjson::Document doc = dryrun(R"({"name":"j","roles":[
    {"name":"trainer","image":"i","entrypoint":"e","num_replicas":4,"max_retries":2},
    {"name":"eval","image":"i","entrypoint":"e","max_retries":1}]})",
                                         R"({"namespace":"team-a","gang_scheduler":"jobset"})");
  const Json& jobset = at(doc, "/request/objects/0/manifest");
  EXPECT_EQ(text(jobset, "/kind"), "JobSet");
  EXPECT_EQ(at(jobset, "/spec/failurePolicy/maxRestarts").GetInt(), 1)
      << "the app restarts as often as its least-retried role allows";
  EXPECT_EQ(at(jobset, "/spec/replicatedJobs/0/template/spec/completions").GetInt(), 4);
  EXPECT_EQ(text(jobset, "/spec/replicatedJobs/0/template/spec/completionMode"), "Indexed");
  EXPECT_EQ(text(jobset, "/spec/replicatedJobs/1/name"), "eval");
  EXPECT_EQ(env_value(at(jobset, "/spec/replicatedJobs/1/template/spec/template/spec/containers/0"),
                      "SORTIE_RANK0_HOST"),
            "trainer-k3x9q2m1zt-trainer-0-0.trainer-k3x9q2m1zt");
}

TEST_F(KubernetesManifestsTest, ARoleWithoutEntrypointRunsTheImagesOwnWithItsArgs) {
  // What container, bazel_container, python_container and dockerfile executables package to.
  const rapidjson::Document doc = dryrun(
      R"({"name":"a","roles":[{"name":"r","image":"gcr.io/p/trainer:1","args":["--lr=0.1"]}]})",
      cfg_);
  const Json& container = at(doc, "/request/objects/0/manifest/spec/template/spec/containers/0");
  EXPECT_FALSE(container.HasMember("command"));
  EXPECT_EQ(text(container, "/image"), "gcr.io/p/trainer:1");
  EXPECT_EQ(text(container, "/args/0"), "--lr=0.1");
}

TEST_F(KubernetesManifestsTest, WhatCannotRunIsRefusedByName) {
  EXPECT_NE(error_of(R"({"name":"a","roles":[{"name":"r","entrypoint":"e"}]})", cfg_)
                .find("role 'r': field 'image' must name a container image"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name":"a","roles":[{"name":"r","image":"i","entrypoint":"e",
    "port_map":{"Tensor_Board":6006}}]})",
                     cfg_)
                .find("port_map name 'Tensor_Board' is not a valid Kubernetes port name"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name":"a","roles":[{"name":"r","image":"i","entrypoint":"e",
    "num_replicas":4,"min_replicas":2}]})",
                     cfg_)
                .find("needs gang_scheduler=volcano"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name":"a","roles":[{"name":"r","image":"i","entrypoint":"e",
    "num_replicas":4,"max_retries":2}]})",
                     cfg_)
                .find("retry_policy APPLICATION with max_retries 2 restarts more than the failed "
                      "replica"),
            std::string::npos);
  EXPECT_NE(error_of(kTwoReplicas, R"({"gang_scheduler":"kueue"})")
                .find("'gang_scheduler' = 'kueue': expected none, volcano or jobset"),
            std::string::npos);
  EXPECT_NE(error_of(kTwoReplicas, R"({"namespace":"Team_A"})").find("run option 'namespace'"),
            std::string::npos);
  EXPECT_NE(error_of(kTwoReplicas, R"({"image_provider":"docker"})")
                .find("run option 'image_provider' is not supported by the kubernetes scheduler"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name":"a","roles":[{"name":"r","image":"i","entrypoint":"e",
    "metadata":{"kubernetes.tolerations":"x"}}]})",
                     cfg_)
                .find("metadata key 'kubernetes.tolerations'"),
            std::string::npos);
}

TEST_F(KubernetesManifestsTest, RolesWhoseNamesCollideAfterSanitisingAreRefused) {
  EXPECT_NE(error_of(R"({"name":"a","roles":[{"name":"Train","image":"i","entrypoint":"e"},
    {"name":"train","image":"i","entrypoint":"e"}]})",
                     cfg_)
                .find("is the same as another role's"),
            std::string::npos);
}

}  // namespace
}  // namespace sortie::kubernetes
