#include <gtest/gtest.h>
#include <stdlib.h>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

std::string env_of(const rapidjson::Value& replica, const char* name) {
  const auto it = replica["env"].FindMember(name);
  return it == replica["env"].MemberEnd() ? "<unset>" : it->value.GetString();
}

const rapidjson::Value& replica_of(const rapidjson::Document& dry, size_t role, size_t replica) {
  return dry["request"]["roles"][static_cast<rapidjson::SizeType>(role)]["replicas"]
            [static_cast<rapidjson::SizeType>(replica)];
}

class DryrunTest : public ::testing::Test {
 protected:
  TempDir state_;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_F(DryrunTest, AppliesMacrosPerReplicaAndAddsEnvironment) {
  const std::string roles = R"([{"name":"trainer","entrypoint":"python","num_replicas":2,
      "args":["--id=${replica_id}/${num_replicas}","${app_id}","${role_name}","${img_root}",
              "${rank0_env}=${rank0_host}","${unknown}"],
      "env":{"RANK":"${replica_id}","PATH":"/opt/bin"},
      "max_retries":3,"retry_policy":"REPLICA","port_map":{"http":8080}}])";
  const Result result = scheduler_.dryrun(dryrun_input("app-1", roles, R"({"log_dir":"/logs"})"));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document dry = parse(result.out);
  EXPECT_STREQ(dry["schema"].GetString(), "sortie.dryrun/1");
  EXPECT_STREQ(dry["app_id"].GetString(), "app-1");
  const rapidjson::Value& request = dry["request"];
  EXPECT_STREQ(request["app_dir"].GetString(), "/logs/test/app-1");
  EXPECT_EQ(request["roles"][0]["max_retries"].GetInt(), 3);
  EXPECT_STREQ(request["roles"][0]["retry_policy"].GetString(), "REPLICA");
  const std::string cwd = std::filesystem::current_path().string();
  for (size_t id = 0; id < 2; ++id) {
    const rapidjson::Value& replica = replica_of(dry, 0, id);
    const std::string n = std::to_string(id);
    EXPECT_EQ(replica["id"].GetUint(), id);
    const std::vector<std::string> expected_argv = {
        "python",    "--id=" + n + "/2", "app-1", "trainer", cwd, "SORTIE_RANK0_HOST=localhost",
        "${unknown}"};
    ASSERT_EQ(replica["argv"].Size(), expected_argv.size());
    for (size_t i = 0; i < expected_argv.size(); ++i) {
      EXPECT_EQ(replica["argv"][static_cast<rapidjson::SizeType>(i)].GetString(), expected_argv[i]);
    }
    EXPECT_EQ(env_of(replica, "RANK"), n);
    EXPECT_EQ(env_of(replica, "SORTIE_APP_ID"), "app-1");
    EXPECT_EQ(env_of(replica, "SORTIE_ROLE_NAME"), "trainer");
    EXPECT_EQ(env_of(replica, "SORTIE_REPLICA_ID"), n);
    EXPECT_EQ(env_of(replica, "SORTIE_NUM_REPLICAS"), "2");
    EXPECT_TRUE(
        env_of(replica, "SORTIE_METRICS_FILE").ends_with("/trainer." + n + ".metrics.jsonl"));
    EXPECT_EQ(env_of(replica, "SORTIE_RANK0_HOST"), "localhost");
    EXPECT_EQ(env_of(replica, "PYTHONUNBUFFERED"), "x");
    EXPECT_EQ(env_of(replica, "PATH"), "/opt/bin:" + cwd);  // appended by default
    EXPECT_EQ(env_of(replica, "CUDA_VISIBLE_DEVICES"), "<unset>");
    EXPECT_EQ(replica["cwd"].GetString(), cwd);
    EXPECT_EQ(replica["logs"]["combined"].GetString(),
              "/logs/test/app-1/trainer/" + n + "/combined.log");
  }
  const std::string text = dry["text"].GetString();
  EXPECT_NE(text.find("role trainer replica 1 of 2"), std::string::npos) << text;
  EXPECT_NE(text.find("'--id=1/2'"), std::string::npos) << text;
}

TEST_F(DryrunTest, GivesEveryReplicaTheAppsOutputDir) {
  std::string input = dryrun_input(
      "app-1",
      R"([{"name":"t","entrypoint":"sh","args":["${output_dir}/ckpt.pt"],"num_replicas":2,)"
      R"("env":{"CKPT":"${output_dir}/c"}}])",
      "{}");
  input.replace(input.find(R"("roles")"), 0, R"("output_dir":"/out/app-1",)");
  const Result result = scheduler_.dryrun(input);
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document dry = parse(result.out);
  for (size_t id = 0; id < 2; ++id) {
    const rapidjson::Value& replica = replica_of(dry, 0, id);
    EXPECT_STREQ(replica["argv"][1].GetString(), "/out/app-1/ckpt.pt");
    EXPECT_EQ(env_of(replica, "CKPT"), "/out/app-1/c");
    EXPECT_EQ(env_of(replica, "SORTIE_OUTPUT_DIR"), "/out/app-1");
  }
}

TEST_F(DryrunTest, PrependCwdPutsTheWorkingDirectoryFirstOnPath) {
  const std::string roles = R"([{"name":"r","entrypoint":"x","env":{"PATH":"/opt/bin"}}])";
  const Result result = scheduler_.dryrun(dryrun_input("a", roles, R"({"prepend_cwd":true})"));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(env_of(replica_of(parse(result.out), 0, 0), "PATH"), cwd + ":/opt/bin");
}

TEST_F(DryrunTest, EnvAllowListsTheAllowedVariablesAndStopsInheritance) {
  ::setenv("ALLOWED_ONE", "1", 1);
  ::setenv("PREFIX_TWO", "2", 1);
  ::setenv("UNLISTED", "3", 1);
  ::setenv("SORTIE_EXTRA", "4", 1);
  const std::string roles = R"([{"name":"r","entrypoint":"true","env":{"PREFIX_TWO":"role"}}])";
  const Result allowed =
      scheduler_.dryrun(dryrun_input("a", roles, R"({"env_allow":["ALLOWED_ONE","PREFIX_*"]})"));
  const Result inherited = scheduler_.dryrun(dryrun_input("b", roles, "{}"));
  ::unsetenv("ALLOWED_ONE");
  ::unsetenv("PREFIX_TWO");
  ::unsetenv("UNLISTED");
  ::unsetenv("SORTIE_EXTRA");
  ASSERT_EQ(allowed.status, SORTIE_OK) << allowed.err;
  const rapidjson::Document dry = parse(allowed.out);
  EXPECT_FALSE(dry["request"]["inherit_environment"].GetBool());
  const rapidjson::Value& replica = replica_of(dry, 0, 0);
  EXPECT_EQ(env_of(replica, "ALLOWED_ONE"), "1");
  EXPECT_EQ(env_of(replica, "PREFIX_TWO"), "role");  // the role's env wins
  EXPECT_EQ(env_of(replica, "SORTIE_EXTRA"), "4");   // SORTIE_* always passes
  EXPECT_EQ(env_of(replica, "UNLISTED"), "<unset>");
  EXPECT_EQ(env_of(replica, "PATH"),
            "/usr/local/bin:/usr/bin:/bin:" + std::filesystem::current_path().string());

  ASSERT_EQ(inherited.status, SORTIE_OK) << inherited.err;
  const rapidjson::Document plain = parse(inherited.out);
  EXPECT_TRUE(plain["request"]["inherit_environment"].GetBool());
  EXPECT_EQ(env_of(replica_of(plain, 0, 0), "ALLOWED_ONE"), "<unset>");  // inherited, not listed
}

TEST_F(DryrunTest, DefaultLogDirIsUnderTheStateDir) {
  const Result result =
      scheduler_.dryrun(dryrun_input("a", R"([{"name":"r","entrypoint":"x"}])", "{}"));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  EXPECT_EQ(parse(result.out)["request"]["app_dir"].GetString(), state_.path() + "/logs/test/a");
}

TEST_F(DryrunTest, UsesTheImagesTheHostFetched) {
  const std::string input =
      R"({"schema":"sortie.dryrun_input/1","app":{"name":"x","roles":[{"name":"r",
          "entrypoint":"run","args":["${img_root}"]}]},"cfg":{},"app_id":"a","session":"test",
          "images":{"r":{"img_root":"/images/r","cwd":"/images/r/work"}}})";
  const Result result = scheduler_.dryrun(input);
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document dry = parse(result.out);
  EXPECT_STREQ(replica_of(dry, 0, 0)["cwd"].GetString(), "/images/r/work");
  EXPECT_STREQ(replica_of(dry, 0, 0)["argv"][1].GetString(), "/images/r");
}

TEST_F(DryrunTest, RefusesMountsNamingRoleAndField) {
  const std::string roles = R"([{"name":"r","entrypoint":"x",
      "mounts":[{"type":"bind","src":"/a","dst":"/b","read_only":false}]}])";
  const Result result = scheduler_.dryrun(dryrun_input("a", roles, "{}"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("role 'r'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'mounts'"), std::string::npos) << result.err;
}

TEST_F(DryrunTest, RefusesElasticMinReplicas) {
  const std::string roles = R"([{"name":"r","entrypoint":"x","num_replicas":4,"min_replicas":2}])";
  const Result result = scheduler_.dryrun(dryrun_input("a", roles, "{}"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("'min_replicas'"), std::string::npos) << result.err;
  const std::string equal = R"([{"name":"r","entrypoint":"x","num_replicas":2,"min_replicas":2}])";
  EXPECT_EQ(scheduler_.dryrun(dryrun_input("a", equal, "{}")).status, SORTIE_OK);
}

TEST_F(DryrunTest, RefusesUnknownRetryPolicy) {
  const std::string roles = R"([{"name":"r","entrypoint":"x","retry_policy":"HOST"}])";
  const Result result = scheduler_.dryrun(dryrun_input("a", roles, "{}"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(
      result.err.find(
          R"(roles[0].retry_policy: expected "REPLICA", "APPLICATION" or "ROLE", got "HOST")"),
      std::string::npos)
      << result.err;
}

TEST_F(DryrunTest, RefusesRoleNamesThatAreNotDirectoryNames) {
  const Result result =
      scheduler_.dryrun(dryrun_input("a", R"([{"name":"../x","entrypoint":"x"}])", "{}"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("'../x'"), std::string::npos) << result.err;
}

TEST_F(DryrunTest, AssignsContiguousGpuBlocksAcrossRoles) {
  ::setenv("SORTIE_GPU_DEVICES", "0,1,2,3,4", 1);
  const std::string roles =
      R"([{"name":"a","entrypoint":"x","num_replicas":2,"resource":{"gpu":2}},
          {"name":"b","entrypoint":"x","resource":{"gpu":1}},
          {"name":"c","entrypoint":"x","resource":{"gpu":0}}])";
  const Result result =
      scheduler_.dryrun(dryrun_input("g", roles, R"({"auto_set_cuda_visible_devices":true})"));
  ::unsetenv("SORTIE_GPU_DEVICES");
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document dry = parse(result.out);
  EXPECT_EQ(env_of(replica_of(dry, 0, 0), "CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(env_of(replica_of(dry, 0, 1), "CUDA_VISIBLE_DEVICES"), "2,3");
  EXPECT_EQ(env_of(replica_of(dry, 1, 0), "CUDA_VISIBLE_DEVICES"), "4");
  EXPECT_EQ(env_of(replica_of(dry, 2, 0), "CUDA_VISIBLE_DEVICES"), "<unset>");
}

TEST_F(DryrunTest, GpuDevicesOptionOverridesTheEnvironment) {
  ::setenv("SORTIE_GPU_DEVICES", "0", 1);
  const std::string roles = R"([{"name":"a","entrypoint":"x","resource":{"gpu":2}}])";
  const Result result = scheduler_.dryrun(dryrun_input(
      "g", roles, R"({"auto_set_cuda_visible_devices":true,"gpu_devices":["GPU-a","GPU-b"]})"));
  ::unsetenv("SORTIE_GPU_DEVICES");
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  EXPECT_EQ(env_of(replica_of(parse(result.out), 0, 0), "CUDA_VISIBLE_DEVICES"), "GPU-a,GPU-b");
}

TEST_F(DryrunTest, TooManyGpusIsAnErrorNamingTheCounts) {
  ::setenv("SORTIE_GPU_DEVICES", "0,1,2", 1);
  const std::string roles =
      R"([{"name":"a","entrypoint":"x","num_replicas":2,"resource":{"gpu":2}}])";
  const Result result =
      scheduler_.dryrun(dryrun_input("g", roles, R"({"auto_set_cuda_visible_devices":true})"));
  ::unsetenv("SORTIE_GPU_DEVICES");
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("asks for 4 GPUs"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("has 3"), std::string::npos) << result.err;
}

TEST(LocalDirDryrun, RunsInTheImageDirectory) {
  TempDir state, image;
  SchedulerClient scheduler("local_dir", state.path());
  const std::string roles =
      R"([{"name":"r","entrypoint":"x","args":["${img_root}"],"image":")" + image.path() + "\"}]";
  const Result result = scheduler.dryrun(dryrun_input("d", roles, "{}"));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document dry = parse(result.out);
  EXPECT_EQ(replica_of(dry, 0, 0)["cwd"].GetString(), image.path());
  EXPECT_EQ(replica_of(dry, 0, 0)["argv"][1].GetString(), image.path());
}

TEST(LocalDirDryrun, MissingImageDirectoryIsAClearError) {
  TempDir state;
  SchedulerClient scheduler("local_dir", state.path());
  const std::string roles = R"([{"name":"r","entrypoint":"x","image":"/no/such/image/dir"}])";
  const Result result = scheduler.dryrun(dryrun_input("d", roles, "{}"));
  EXPECT_EQ(result.status, SORTIE_NOT_FOUND);
  EXPECT_NE(result.err.find("role 'r'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'/no/such/image/dir'"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace sortie::local::testing
