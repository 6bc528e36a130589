#include "app_plan.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::docker {
namespace {

const SchedulerContext kContext{"local_docker", "default", "/tmp"};

std::string input(const std::string& roles, const std::string& cfg = "{}",
                  const std::string& images = "", const std::string& app_members = "") {
  return R"({"schema":"sortie.dryrun_input/1","app":{"name":"app",)" + app_members + R"("roles":)" +
         roles + R"(},"cfg":)" + cfg + R"(,"app_id":"app-1","session":"s")" +
         (images.empty() ? "" : R"(,"images":)" + images) + "}";
}

std::string refusal(const std::string& roles, const std::string& cfg = "{}") {
  try {
    build_dryrun(input(roles, cfg), kContext);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kInvalidArgument);
    return error.what();
  }
  return "";
}

TEST(DockerAppPlan, OneContainerPerReplicaOnTheAppNetwork) {
  ::setenv("SORTIE_PLAN_TEST_TOKEN", "t0k", 1);
  const std::string dry = build_dryrun(
      input(R"([{"name":"Train_er","image":"busybox","entrypoint":"python",)"
            R"("args":["--rank","${replica_id}","--master","${rank0_host}"],"num_replicas":2,)"
            R"("env":{"ROLE":"${role_name}"},"max_retries":3,"retry_policy":"REPLICA",)"
            R"("resource":{"cpu":2,"gpu":1,"memMB":512}},)"
            R"({"name":"ps","image":"busybox","entrypoint":"ps"}])",
            R"({"copy_env":["SORTIE_PLAN_TEST_*"],"env":{"OPT":"1"},"image_provider":""})"),
      kContext);
  const rapidjson::Document document = plugins_common::parse_object(dry, "dryrun");
  const AppPlan plan = read_plan(document["request"]);
  EXPECT_EQ(plan.network, "sortie-app-1");
  ASSERT_EQ(plan.containers.size(), 3u);
  EXPECT_EQ(plan.containers[1].name, "app-1-train-er-1");
  EXPECT_EQ(plan.containers[1].hostname, "train-er-1");
  EXPECT_EQ(plan.containers[2].hostname, "ps-0");
  const rapidjson::Document body =
      plugins_common::parse_object(plan.containers[1].create_body, "create");
  EXPECT_EQ(plugins_common::to_json_text(body["Cmd"]), R"(["--rank","1","--master","train-er-0"])");
  EXPECT_EQ(plugins_common::to_json_text(body["Entrypoint"]), R"(["python"])");
  const std::string env = plugins_common::to_json_text(body["Env"]);
  for (const char* expected :
       {"SORTIE_PLAN_TEST_TOKEN=t0k", "OPT=1", "ROLE=Train_er", "SORTIE_RANK0_HOST=train-er-0",
        "SORTIE_REPLICA_ID=1", "SORTIE_NUM_REPLICAS=2"}) {
    EXPECT_NE(env.find(expected), std::string::npos) << expected << " in " << env;
  }
  const rapidjson::Value& host = body["HostConfig"];
  EXPECT_EQ(host["NanoCpus"].GetInt64(), 2000000000);
  EXPECT_EQ(host["Memory"].GetInt64(), 512 * 1024 * 1024);
  EXPECT_EQ(host["DeviceRequests"][0]["Count"].GetInt64(), 1);  // the GPU, visible in dry-run
  EXPECT_EQ(plugins_common::to_json_text(host["RestartPolicy"]),
            R"({"Name":"on-failure","MaximumRetryCount":3})");
  EXPECT_STREQ(host["NetworkMode"].GetString(), "sortie-app-1");
  EXPECT_STREQ(body["Labels"]["sortie.app_id"].GetString(), "app-1");
  EXPECT_STREQ(body["Labels"]["sortie.replica_id"].GetString(), "1");
  EXPECT_NE(document["text"].GetString(), std::string());
}

TEST(DockerAppPlan, TheOutputDirIsBindMountedAtOneFixedPath) {
  const std::string roles =
      R"([{"name":"t","image":"busybox","entrypoint":"sh","args":["-c","> ${output_dir}/x"]}])";
  const std::string dry =
      build_dryrun(input(roles, "{}", "", R"("output_dir":"/host/out/app-1",)"), kContext);
  const rapidjson::Document document = plugins_common::parse_object(dry, "dryrun");
  const AppPlan plan = read_plan(document["request"]);
  const rapidjson::Document body =
      plugins_common::parse_object(plan.containers[0].create_body, "create");
  EXPECT_EQ(plugins_common::to_json_text(body["HostConfig"]["Mounts"]),
            R"([{"Type":"bind","Source":"/host/out/app-1","Target":"/sortie/output",)"
            R"("ReadOnly":false}])");
  EXPECT_EQ(plugins_common::to_json_text(body["Cmd"]), R"(["-c","> /sortie/output/x"])");
  EXPECT_NE(plugins_common::to_json_text(body["Env"]).find("SORTIE_OUTPUT_DIR=/sortie/output"),
            std::string::npos);
  // A role's own mount there would hide it.
  try {
    build_dryrun(input(R"([{"name":"t","image":"busybox","entrypoint":"sh",)"
                       R"("mounts":[{"type":"volume","src":"v","dst":"/sortie/output"}]}])",
                       "{}", "", R"("output_dir":"/host/out/app-1",)"),
                 kContext);
    ADD_FAILURE() << "a mount at /sortie/output was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("dst '/sortie/output'"), std::string::npos)
        << error.what();
  }
}

TEST(DockerAppPlan, FreePortIsFixedAndGpusAreDeviceRequests) {
  // Each app has its own network, so ${free_port} is 29500 (payloads.md P-12.1); resource.gpu is
  // what `docker run --gpus 2` asks the Engine for.
  const std::string dry =
      build_dryrun(input(R"([{"name":"trainer","image":"i","entrypoint":"python","num_replicas":2,)"
                         R"("args":["--rdzv_endpoint","${rank0_host}:${free_port}"],)"
                         R"("env":{"MASTER_PORT":"${free_port}"},"resource":{"gpu":2}},)"
                         R"({"name":"cpu","image":"i","entrypoint":"x"}])",
                         R"({"image_provider":""})"),
                   kContext);
  const AppPlan plan = read_plan(plugins_common::parse_object(dry, "dryrun")["request"]);
  ASSERT_EQ(plan.containers.size(), 3u);
  const rapidjson::Document body =
      plugins_common::parse_object(plan.containers[1].create_body, "create");
  EXPECT_EQ(plugins_common::to_json_text(body["Cmd"]), R"(["--rdzv_endpoint","trainer-0:29500"])");
  EXPECT_NE(plugins_common::to_json_text(body["Env"]).find("\"MASTER_PORT=29500\""),
            std::string::npos)
      << plugins_common::to_json_text(body["Env"]);
  EXPECT_EQ(plugins_common::to_json_text(body["HostConfig"]["DeviceRequests"]),
            R"([{"Driver":"nvidia","Count":2,"Capabilities":[["gpu"]]}])");
  const rapidjson::Document cpu =
      plugins_common::parse_object(plan.containers[2].create_body, "create");
  EXPECT_FALSE(cpu["HostConfig"].HasMember("DeviceRequests"));
}

TEST(DockerAppPlan, WorkspaceImagesAreRunOrPushed) {
  const std::string roles = R"([{"name":"a","image":"busybox","entrypoint":"x"}])";
  const std::string images =
      R"({"a":{"schema":"sortie.image/1","img_root":"/w","cwd":"/w","image":"sortie-workspace:abc"}})";
  const AppPlan plain = read_plan(plugins_common::parse_object(
      build_dryrun(input(roles, "{}", images), kContext), "d")["request"]);
  EXPECT_EQ(plain.images, std::vector<std::string>{"sortie-workspace:abc"});
  EXPECT_TRUE(plain.pushes.empty());
  const AppPlan pushed = read_plan(plugins_common::parse_object(
      build_dryrun(input(roles, R"({"image_repo":"localhost:5000/t"})", images), kContext),
      "d")["request"]);
  ASSERT_EQ(pushed.pushes.size(), 1u);
  EXPECT_EQ(pushed.pushes[0].repository, "localhost:5000/t");
  EXPECT_EQ(pushed.pushes[0].tag, "abc");
  EXPECT_EQ(pushed.images, std::vector<std::string>{"localhost:5000/t:abc"});
  EXPECT_NE(
      refusal(roles, R"({"image_repo":"localhost:5000/t","image_provider":""})").find("image_repo"),
      std::string::npos);
}

TEST(DockerAppPlan, HostPortsArePublishedAndTheJobNameIsAnAlias) {
  // XManager's DockerOptions(ports={8080: 18080}) as the host passes it (payloads.md P-1).
  const std::string dry = build_dryrun(
      input(R"([{"name":"server","image":"i","entrypoint":"x","port_map":{"port-8080":8080,)"
            R"("port-9090":9090,"debug":5678},"metadata":{"sortie.host_ports":{"8080":18080,)"
            R"("9090":0},"sortie.job_name":"1_1_server"}}])",
            R"({"image_provider":""})"),
      kContext);
  const AppPlan plan = read_plan(plugins_common::parse_object(dry, "dryrun")["request"]);
  const rapidjson::Document body =
      plugins_common::parse_object(plan.containers[0].create_body, "create");
  EXPECT_EQ(plugins_common::to_json_text(body["HostConfig"]["PortBindings"]),
            R"({"8080/tcp":[{"HostIp":"127.0.0.1","HostPort":"18080"}],)"
            R"("9090/tcp":[{"HostIp":"127.0.0.1","HostPort":""}],)"
            R"("5678/tcp":[{"HostIp":"127.0.0.1","HostPort":""}]})");
  EXPECT_EQ(plugins_common::to_json_text(
                body["NetworkingConfig"]["EndpointsConfig"]["sortie-app-1"]["Aliases"]),
            R"(["server-0","1_1_server"])");
}

TEST(DockerAppPlan, RefusesHostPortsItCannotPublish) {
  const std::string head = R"([{"name":"r","image":"i","entrypoint":"x","port_map":{"p":8080},)";
  EXPECT_NE(refusal(head + R"("num_replicas":2,"metadata":{"sortie.host_ports":{"8080":18080}}}])")
                .find("replicas cannot all bind it"),
            std::string::npos);
  EXPECT_NE(refusal(head + R"("metadata":{"sortie.host_ports":{"9090":18080}}}])")
                .find("container port 9090 is not in the role's port_map"),
            std::string::npos);
  EXPECT_NE(refusal(head + R"("metadata":{"sortie.host_ports":{"8080":"x"}}}])")
                .find("must be a number from 0 to 65535"),
            std::string::npos);
}

TEST(DockerAppPlan, RefusesWhatDockerCannotDo) {
  const std::string head = R"([{"name":"r","image":"busybox","entrypoint":"x",)";
  EXPECT_NE(refusal(head + R"("max_retries":1,"retry_policy":"APPLICATION"}])")
                .find("only REPLICA retries"),
            std::string::npos);
  EXPECT_NE(refusal(head + R"("min_replicas":1,"num_replicas":2}])").find("not elastic"),
            std::string::npos);
  EXPECT_NE(refusal(head + R"("base_image":"x"}])").find("base_image"), std::string::npos);
  EXPECT_NE(refusal(head + R"("resource":{"devices":{"efa":1}}}])").find("devices"),
            std::string::npos);
  EXPECT_NE(refusal(head + R"("mounts":[{"type":"bind","src":"/no/such/dir","dst":"/d"}]}])")
                .find("does not exist"),
            std::string::npos);
  EXPECT_NE(refusal(head + R"("metadata":{"local_docker.x":"1"}}])").find("local_docker.x"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"r","image":".","entrypoint":"x"}])").find("not a container"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"a_b","image":"i","entrypoint":"x"},)"
                    R"({"name":"a-b","image":"i","entrypoint":"x"}])")
                .find("host name"),
            std::string::npos);
  EXPECT_NE(refusal(head + R"("port_map":{"http":70000}}])").find("port_map"), std::string::npos);
}

}  // namespace
}  // namespace sortie::docker
