#include "custom_job_builder.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <stdlib.h>

#include <sortie/plugin.hpp>

namespace sortie::vertex {
namespace {

std::string input(const std::string& roles, const std::string& cfg,
                  const std::string& app_id = "trainer-k3x9q2") {
  return R"({"schema":"sortie.dryrun_input/1","app":{"schema":"sortie.appdef/1","name":"trainer",)"
         R"("roles":)" +
         roles + R"(},"cfg":)" + cfg + R"(,"app_id":")" + app_id + R"(","session":"Team A"})";
}

rapidjson::Document dryrun(const std::string& roles, const std::string& cfg) {
  rapidjson::Document document;
  document.Parse(build_dryrun(input(roles, cfg), "default").c_str());
  EXPECT_FALSE(document.HasParseError());
  return document;
}

std::string refusal(const std::string& roles, const std::string& cfg) {
  try {
    build_dryrun(input(roles, cfg), "default");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "dryrun accepted " << roles << " " << cfg;
  return "";
}

std::string env_of(const rapidjson::Value& container, const char* name) {
  for (const rapidjson::Value& entry : container["env"].GetArray()) {
    if (std::string(entry["name"].GetString()) == name) return entry["value"].GetString();
  }
  return "<unset>";
}

constexpr const char* kOneRole =
    R"([{"name":"Trainer","image":"gcr.io/p/t:1","entrypoint":"python",
        "args":["-m","train","--id=${app_id}/${role_name}/${replica_id}/${num_replicas}","a b"],
        "env":{"LR":"0.1"}}])";
constexpr const char* kProject = R"({"project":"p"})";

TEST(VertexCustomJobBuilderTest, BuildsOneWorkerPoolPerRoleInRestJson) {
  const rapidjson::Document dry = dryrun(kOneRole, kProject);
  EXPECT_STREQ(dry["schema"].GetString(), "sortie.dryrun/1");
  EXPECT_STREQ(dry["app_id"].GetString(), "trainer-k3x9q2");
  const rapidjson::Value& job = dry["request"];
  EXPECT_STREQ(job["displayName"].GetString(), "trainer-k3x9q2");
  EXPECT_STREQ(job["labels"]["sortie-session"].GetString(), "team-a");
  EXPECT_STREQ(job["labels"]["sortie-app"].GetString(), "trainer-k3x9q2");
  const rapidjson::Value& pool = job["jobSpec"]["workerPoolSpecs"][0];
  EXPECT_STREQ(pool["replicaCount"].GetString(), "1");  // int64: a JSON string
  EXPECT_STREQ(pool["machineSpec"]["machineType"].GetString(), "n1-standard-4");
  EXPECT_FALSE(pool["machineSpec"].HasMember("acceleratorType"));
  const rapidjson::Value& container = pool["containerSpec"];
  EXPECT_STREQ(container["imageUri"].GetString(), "gcr.io/p/t:1");
  ASSERT_EQ(container["command"].Size(), 1u);
  EXPECT_STREQ(container["command"][0].GetString(), "python");
  ASSERT_EQ(container["args"].Size(), 4u);
  EXPECT_STREQ(container["args"][2].GetString(), "--id=trainer-k3x9q2/Trainer/0/1");
  EXPECT_STREQ(container["args"][3].GetString(), "a b");  // exec form: no shell quoting
  EXPECT_EQ(env_of(container, "LR"), "0.1");
  EXPECT_EQ(env_of(container, "SORTIE_ROLE_NAME"), "Trainer");
  EXPECT_EQ(env_of(container, "SORTIE_APP_ID"), "trainer-k3x9q2");
  EXPECT_STREQ(dry["vertex"]["parent"].GetString(), "projects/p/locations/us-central1");
  EXPECT_STREQ(dry["vertex"]["connection"]["endpoint"].GetString(),
               "https://us-central1-aiplatform.googleapis.com");
}

TEST(VertexCustomJobBuilderTest, TextIsTheHttpRequestWithoutTheToken) {
  ::setenv("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.secret-value", 1);
  const std::string out = build_dryrun(input(kOneRole, kProject), "default");
  ::unsetenv("GOOGLE_OAUTH_ACCESS_TOKEN");
  EXPECT_EQ(out.find("ya29.secret-value"), std::string::npos);
  rapidjson::Document dry;
  dry.Parse(out.c_str());
  const std::string text = dry["text"].GetString();
  EXPECT_EQ(text.rfind("POST https://us-central1-aiplatform.googleapis.com/v1/projects/p/"
                       "locations/us-central1/customJobs\nAuthorization: Bearer <access token>\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("\"displayName\": \"trainer-k3x9q2\""), std::string::npos) << text;
}

TEST(VertexCustomJobBuilderTest, RunOptionsFillTheJobSpec) {
  const rapidjson::Document dry = dryrun(
      R"([{"name":"chief","image":"i","entrypoint":"e","resource":{"cpu":8,"gpu":2,"memMB":30000}},
          {"name":"ps","image":"i","entrypoint":"e","num_replicas":2,"resource":{"gpu":0}}])",
      R"({"project":"p","location":"europe-west4","endpoint":"http://127.0.0.1:9/",
          "display_name":"exp_1_2","service_account":"sa@p.iam.gserviceaccount.com",
          "network":"projects/1/global/networks/n","labels":{"team":"vision"},
          "base_output_dir":"gs://b/o","tensorboard":"projects/p/locations/europe-west4/tensorboards/7",
          "timeout_seconds":3600,"restart_job_on_worker_restart":true,"enable_web_access":true,
          "boot_disk_type":"pd-ssd","boot_disk_size_gb":100,"accelerator":"t4"})");
  const rapidjson::Value& job = dry["request"];
  const rapidjson::Value& spec = job["jobSpec"];
  EXPECT_STREQ(job["displayName"].GetString(), "exp_1_2");
  EXPECT_STREQ(job["labels"]["team"].GetString(), "vision");
  EXPECT_STREQ(spec["serviceAccount"].GetString(), "sa@p.iam.gserviceaccount.com");
  EXPECT_STREQ(spec["network"].GetString(), "projects/1/global/networks/n");
  EXPECT_STREQ(spec["baseOutputDirectory"]["outputUriPrefix"].GetString(), "gs://b/o");
  EXPECT_STREQ(spec["tensorboard"].GetString(), "projects/p/locations/europe-west4/tensorboards/7");
  EXPECT_STREQ(spec["scheduling"]["timeout"].GetString(), "3600s");
  EXPECT_TRUE(spec["scheduling"]["restartJobOnWorkerRestart"].GetBool());
  EXPECT_TRUE(spec["enableWebAccess"].GetBool());
  const rapidjson::Value& chief = spec["workerPoolSpecs"][0];
  EXPECT_STREQ(chief["machineSpec"]["acceleratorType"].GetString(), "NVIDIA_TESLA_T4");
  EXPECT_EQ(chief["machineSpec"]["acceleratorCount"].GetInt(), 2);
  EXPECT_STREQ(chief["diskSpec"]["bootDiskType"].GetString(), "pd-ssd");
  EXPECT_EQ(chief["diskSpec"]["bootDiskSizeGb"].GetInt(), 100);
  // resource.gpu 0 says "no accelerator", whatever the run option.
  const rapidjson::Value& ps = spec["workerPoolSpecs"][1];
  EXPECT_FALSE(ps["machineSpec"].HasMember("acceleratorType"));
  EXPECT_STREQ(ps["replicaCount"].GetString(), "2");
  EXPECT_STREQ(dry["vertex"]["connection"]["endpoint"].GetString(), "http://127.0.0.1:9");
}

TEST(VertexCustomJobBuilderTest, RoleMetadataOverridesTheRunOptions) {
  const rapidjson::Document dry = dryrun(
      R"([{"name":"r","image":"i","entrypoint":"e",
           "metadata":{"vertex.accelerator":"tpu_v3","caip.tpu_topology":"4x4","other.key":1}}])",
      R"({"project":"p","accelerator":"t4","service_account":"sa@p.iam.gserviceaccount.com"})");
  const rapidjson::Value& spec = dry["request"]["jobSpec"];
  const rapidjson::Value& machine = spec["workerPoolSpecs"][0]["machineSpec"];
  EXPECT_STREQ(machine["machineType"].GetString(), "cloud-tpu");
  EXPECT_STREQ(machine["acceleratorType"].GetString(), "TPU_V3");
  EXPECT_EQ(machine["acceleratorCount"].GetInt(), 32);
  EXPECT_STREQ(machine["tpuTopology"].GetString(), "4x4");
  // XManager issue #11: a TPU job keeps its service account.
  EXPECT_STREQ(spec["serviceAccount"].GetString(), "sa@p.iam.gserviceaccount.com");
}

TEST(VertexCustomJobBuilderTest, AnEmptyEntrypointRunsTheImagesOwn) {
  // Images sortie's packagers build keep their ENTRYPOINT (payloads.md P-2): no command is sent.
  const rapidjson::Document dry = dryrun(
      R"([{"name":"r","image":"i","entrypoint":"","args":["--lr=0.1"]}])", R"({"project":"p"})");
  const rapidjson::Value& container =
      dry["request"]["jobSpec"]["workerPoolSpecs"][0]["containerSpec"];
  EXPECT_FALSE(container.HasMember("command"));
  EXPECT_STREQ(container["args"][0].GetString(), "--lr=0.1");
}

TEST(VertexCustomJobBuilderTest, FreePortIsAFixedPort) {
  // Each replica is its own machine, so ${free_port} is 29500 (payloads.md P-12.1).
  const rapidjson::Document dry =
      dryrun(R"([{"name":"r","image":"i","entrypoint":"e","args":["--port=${free_port}"],
                 "env":{"MASTER_PORT":"${free_port}"}}])",
             kProject);
  const rapidjson::Value& container =
      dry["request"]["jobSpec"]["workerPoolSpecs"][0]["containerSpec"];
  EXPECT_STREQ(container["args"][0].GetString(), "--port=29500");
  EXPECT_EQ(env_of(container, "MASTER_PORT"), "29500");
}

TEST(VertexCustomJobBuilderTest, TheOutputDirIsUnderBaseOutputDirOrRefused) {
  const std::string roles =
      R"([{"name":"r","image":"i","entrypoint":"e","args":["--ckpt=${output_dir}/c"]}])";
  const auto with_output_dir = [&](const std::string& cfg) {
    std::string text = input(roles, cfg);
    text.replace(text.find(R"("roles")"), 0, R"("output_dir":"/host/out/trainer-k3x9q2",)");
    return text;
  };
  rapidjson::Document dry;
  dry.Parse(
      build_dryrun(with_output_dir(R"({"project":"p","base_output_dir":"gs://b/runs"})"), "default")
          .c_str());
  const rapidjson::Value& container =
      dry["request"]["jobSpec"]["workerPoolSpecs"][0]["containerSpec"];
  EXPECT_STREQ(container["args"][0].GetString(), "--ckpt=/gcs/b/runs/trainer-k3x9q2/c");
  EXPECT_EQ(env_of(container, "SORTIE_OUTPUT_DIR"), "/gcs/b/runs/trainer-k3x9q2");
  try {
    build_dryrun(with_output_dir(kProject), "default");
    ADD_FAILURE() << "${output_dir} was accepted without base_output_dir";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("uses ${output_dir}"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("base_output_dir"), std::string::npos) << e.what();
  }
}

TEST(VertexCustomJobBuilderTest, RefusesWhatVertexCannotRun) {
  const std::string role = R"({"name":"r","image":"i","entrypoint":"e"})";
  EXPECT_NE(refusal("[" + role + "]", "{}").find("run option 'project' is required"),
            std::string::npos);
  EXPECT_NE(refusal("[" + role + "]", R"({"project":"p","colour":"red"})")
                .find("run option 'colour' is not supported"),
            std::string::npos);
  EXPECT_NE(refusal("[" + role + "]", R"({"project":"p","labels":{"Team":"x"}})")
                .find("label 'Team=x' is not valid"),
            std::string::npos);
  EXPECT_NE(
      refusal("[" + role + "]", R"({"project":"p","base_output_dir":"/tmp/o"})").find("gs:// URI"),
      std::string::npos);
  EXPECT_NE(refusal("[" + role + "]", R"({"project":"p","tensorboard":"my-board"})")
                .find("tensorboards/{id}"),
            std::string::npos);
  EXPECT_NE(refusal("[" + role + "]",
                    R"({"project":"p","tensorboard":"projects/p/locations/l/tensorboards/1"})")
                .find("run option 'tensorboard' needs run option 'service_account'"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","entrypoint":"e"}])", kProject).find("'image' is required"),
            std::string::npos);
  std::string five = "[";
  for (int i = 0; i < 5; ++i) {
    five += std::string(i ? "," : "") + R"({"name":"r)" + std::to_string(i) +
            R"(","image":"i","entrypoint":"e"})";
  }
  EXPECT_NE(refusal(five + "]", kProject).find("at most 4 worker pools"), std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","image":"i","entrypoint":"e","num_replicas":3}])", kProject)
                .find("first worker pool (the chief) has exactly 1"),
            std::string::npos);
  const std::string spmd = R"([{"name":"c","image":"i","entrypoint":"e"},
      {"name":"w","image":"i","entrypoint":"e","num_replicas":2,"env":{"RANK":"${replica_id}"}}])";
  EXPECT_NE(refusal(spmd, kProject).find("CLUSTER_SPEC"), std::string::npos);
  EXPECT_NE(
      refusal(R"([{"name":"r","image":"i","entrypoint":"e","args":["${rank0_host}"]}])", kProject)
          .find("${rank0_host}"),
      std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","image":"i","entrypoint":"e","max_retries":2}])", kProject)
                .find("'max_retries' is not supported"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","image":"i","entrypoint":"e",
                         "mounts":[{"type":"bind","src":"/a","dst":"/b"}]}])",
                    kProject)
                .find("'mounts' is not supported"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","image":"i","entrypoint":"e",
                         "metadata":{"vertex.acelerator":"t4"}}])",
                    kProject)
                .find("metadata key 'vertex.acelerator'"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","image":"i","entrypoint":"e",
                         "resource":{"capabilities":{"node.kubernetes.io/instance-type":"p3"}}}])",
                    kProject)
                .find("mean nothing to Vertex AI"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","image":"i","entrypoint":"e","resource":{"gpu":2}}])", kProject)
                .find("role 'r' asks for 2 GPUs but not which kind"),
            std::string::npos);
}

TEST(VertexCustomJobBuilderTest, PushImageTagPointsEachPoolAtThePushedTag) {
  ::unsetenv("DOCKER_HOST");
  const rapidjson::Document dry = dryrun(
      R"([{"name":"chief","image":"trainer:dev","entrypoint":"e"},
          {"name":"eval","image":"evaluator:dev","entrypoint":"e"}])",
      R"({"project":"p","push_image_tag":"127.0.0.1:5000/team/${role_name}:${app_id}",
          "push_timeout":90})");
  const rapidjson::Value& pools = dry["request"]["jobSpec"]["workerPoolSpecs"];
  EXPECT_STREQ(pools[0]["containerSpec"]["imageUri"].GetString(),
               "127.0.0.1:5000/team/chief:trainer-k3x9q2");
  EXPECT_STREQ(pools[1]["containerSpec"]["imageUri"].GetString(),
               "127.0.0.1:5000/team/eval:trainer-k3x9q2");
  const rapidjson::Value& pushes = dry["vertex"]["image_pushes"];
  ASSERT_EQ(pushes.Size(), 2u);
  EXPECT_STREQ(pushes[0]["source"].GetString(), "trainer:dev");
  EXPECT_STREQ(pushes[0]["target"].GetString(), "127.0.0.1:5000/team/chief:trainer-k3x9q2");
  EXPECT_STREQ(pushes[1]["roles"][0].GetString(), "eval");
  EXPECT_EQ(dry["vertex"]["push_timeout"].GetDouble(), 90.0);
  // The dry run shows the Engine requests before the API request, and sends neither.
  const std::string text = dry["text"].GetString();
  EXPECT_EQ(text.rfind("# push_image_tag, through the Docker Engine at unix:///var/run/docker.sock "
                       "(DOCKER_HOST unset):\n"
                       "POST /images/trainer:dev/tag?repo=127.0.0.1%3A5000%2Fteam%2Fchief"
                       "&tag=trainer-k3x9q2\n"
                       "POST /images/127.0.0.1:5000/team/chief/push?tag=trainer-k3x9q2\n"
                       "X-Registry-Auth: <no credentials>\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("# then:\nPOST https://us-central1-aiplatform.googleapis.com/"),
            std::string::npos)
      << text;
}

TEST(VertexCustomJobBuilderTest, RoleMetadataPushImageTagAndSharedPushes) {
  ::unsetenv("DOCKER_HOST");
  const rapidjson::Document dry = dryrun(
      R"([{"name":"chief","image":"t","entrypoint":"e"},
          {"name":"worker","image":"t","entrypoint":"e","num_replicas":2},
          {"name":"ps","image":"gcr.io/p/ps:1","entrypoint":"e",
           "metadata":{"vertex.push_image_tag":""}},
          {"name":"eval","image":"v","entrypoint":"e",
           "metadata":{"caip.push_image_tag":"us-docker.pkg.dev/p/r/eval"}}])",
      R"({"project":"p","push_image_tag":"us-docker.pkg.dev/p/r/trainer:v1"})");
  const rapidjson::Value& pools = dry["request"]["jobSpec"]["workerPoolSpecs"];
  EXPECT_STREQ(pools[1]["containerSpec"]["imageUri"].GetString(),
               "us-docker.pkg.dev/p/r/trainer:v1");
  // An empty tag in the metadata means "run the image as named".
  EXPECT_STREQ(pools[2]["containerSpec"]["imageUri"].GetString(), "gcr.io/p/ps:1");
  EXPECT_STREQ(pools[3]["containerSpec"]["imageUri"].GetString(),
               "us-docker.pkg.dev/p/r/eval:latest");
  // One push serves both roles that name the same image and tag.
  const rapidjson::Value& pushes = dry["vertex"]["image_pushes"];
  ASSERT_EQ(pushes.Size(), 2u);
  ASSERT_EQ(pushes[0]["roles"].Size(), 2u);
  EXPECT_STREQ(pushes[0]["roles"][1].GetString(), "worker");
  EXPECT_NE(std::string(dry["text"].GetString())
                .find("X-Registry-Auth: <the Vertex AI access token (user oauth2accesstoken)>"),
            std::string::npos);
  // Without push_image_tag, nothing is pushed.
  EXPECT_FALSE(dryrun(kOneRole, kProject)["vertex"].HasMember("image_pushes"));
}

TEST(VertexCustomJobBuilderTest, RefusesPushImageTagsThatCannotWork) {
  ::unsetenv("DOCKER_HOST");
  const std::string two_images = R"([{"name":"a","image":"x","entrypoint":"e"},
                                     {"name":"b","image":"y","entrypoint":"e"}])";
  EXPECT_NE(refusal(two_images, R"({"project":"p","push_image_tag":"gcr.io/p/t:1"})")
                .find("role 'b': push_image_tag 'gcr.io/p/t:1' is also where role 'a' pushes "
                      "image 'x'; one tag holds one image"),
            std::string::npos);
  const std::string one = R"([{"name":"a","image":"x","entrypoint":"e"}])";
  EXPECT_NE(refusal(one, R"({"project":"p","push_image_tag":"gcr.io/p/t:${replica_id}"})")
                .find("may use the macros ${app_id} and ${role_name} only"),
            std::string::npos);
  EXPECT_NE(refusal(one, R"({"project":"p","push_image_tag":"gcr.io/p/Trainer:1"})")
                .find("role 'a' push_image_tag 'gcr.io/p/Trainer:1' is not an image tag to push "
                      "to: the path component 'Trainer'"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"a","image":"x y","entrypoint":"e"}])",
                    R"({"project":"p","push_image_tag":"gcr.io/p/t:1"})")
                .find("role 'a' image 'x y' is not an image name"),
            std::string::npos);
  ::setenv("DOCKER_HOST", "tcp://127.0.0.1:2375", 1);
  EXPECT_NE(refusal(one, R"({"project":"p","push_image_tag":"gcr.io/p/t:1"})")
                .find("DOCKER_HOST='tcp://127.0.0.1:2375' is not supported for push_image_tag"),
            std::string::npos);
  ::unsetenv("DOCKER_HOST");
  EXPECT_NE(refusal(one, R"({"project":"p","push_timeout":0})")
                .find("run option 'push_timeout' must be positive"),
            std::string::npos);
}

TEST(VertexCustomJobBuilderTest, LabelValuesAreSanitised) {
  EXPECT_EQ(label_value("Team A/b.c"), "team-a-b-c");
  EXPECT_EQ(label_value(std::string(80, 'x')).size(), 63u);
}

}  // namespace
}  // namespace sortie::vertex
