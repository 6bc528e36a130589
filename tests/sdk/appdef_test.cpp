#include <gtest/gtest.h>

#include <sortie/appdef.hpp>
#include <sortie/plugin.hpp>

namespace sortie {
namespace {

// An app whose one role has `members` after its name.
std::string app_with_role(const std::string& members) {
  return R"({"schema":"sortie.appdef/1","name":"a","roles":[{"name":"r")" + members + "}]}";
}

std::string error_of(const std::string& json) {
  try {
    read_appdef(json);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "no error";
}

std::string role_error(const std::string& members) {
  return error_of(app_with_role(R"(,"entrypoint":"e")" + members));
}

TEST(AppDefTest, ReadsEveryField) {
  const AppDef app = read_appdef(
      R"({"schema":"sortie.appdef/1","name":"trainer","metadata":{"k":"v"},"roles":[
      {"name":"w","image":"img:1","base_image":"base:1","entrypoint":"python","args":["-m","t"],
       "env":{"B":"2","A":"1"},"num_replicas":4,"min_replicas":2,"max_retries":3,
       "retry_policy":"REPLICA",
       "resource":{"cpu":1.5,"gpu":2,"memMB":1024,"capabilities":{"zone":"a"},"devices":{"fpga":1}},
       "port_map":{"http":8080},
       "mounts":[{"type":"bind","src":"/data","dst":"/in","read_only":true},
                 {"type":"volume","src":"cache","dst":"/cache"},
                 {"type":"device","src":"/dev/fuse","permissions":"rw"}],
       "metadata":{"x.k":{"n":1},"x.s":"t"}}]})");
  EXPECT_EQ(app.name, "trainer");
  EXPECT_EQ(app.metadata, (StringPairs{{"k", "v"}}));
  ASSERT_EQ(app.roles.size(), 1U);
  const Role& role = app.roles[0];
  EXPECT_EQ(role.name, "w");
  EXPECT_EQ(role.image, "img:1");
  EXPECT_EQ(role.base_image, "base:1");
  EXPECT_EQ(role.entrypoint, "python");
  EXPECT_EQ(role.args, (std::vector<std::string>{"-m", "t"}));
  EXPECT_EQ(role.env, (StringPairs{{"B", "2"}, {"A", "1"}}));  // payload order
  EXPECT_EQ(role.num_replicas, 4);
  EXPECT_EQ(role.min_replicas, 2);
  EXPECT_EQ(role.max_retries, 3);
  EXPECT_EQ(role.retry_policy, RetryPolicy::kReplica);
  EXPECT_EQ(role.resource.cpu, 1.5);
  EXPECT_EQ(role.resource.gpu, 2);
  EXPECT_EQ(role.resource.mem_mb, 1024);
  EXPECT_EQ(role.resource.capabilities, (StringPairs{{"zone", "a"}}));
  EXPECT_EQ(role.resource.devices, (CountPairs{{"fpga", 1}}));
  EXPECT_EQ(role.port_map, (CountPairs{{"http", 8080}}));
  ASSERT_EQ(role.mounts.size(), 3U);
  EXPECT_EQ(role.mounts[0].type, MountType::kBind);
  EXPECT_EQ(role.mounts[0].src, "/data");
  EXPECT_EQ(role.mounts[0].dst, "/in");
  EXPECT_TRUE(role.mounts[0].read_only);
  EXPECT_EQ(role.mounts[1].type, MountType::kVolume);
  EXPECT_FALSE(role.mounts[1].read_only);
  EXPECT_EQ(role.mounts[2].type, MountType::kDevice);
  EXPECT_EQ(role.mounts[2].dst, "/dev/fuse");  // defaults to src
  EXPECT_EQ(role.mounts[2].permissions, "rw");
  EXPECT_EQ(role.metadata, (StringPairs{{"x.k", R"({"n":1})"}, {"x.s", R"("t")"}}));
  EXPECT_EQ(mount_type_name(MountType::kDevice), "device");
}

TEST(AppDefTest, DefaultsWhatIsAbsentOrNull) {
  const Role role =
      read_appdef(app_with_role(R"(,"entrypoint":"e","image":null,"resource":{})")).roles[0];
  EXPECT_EQ(role.image, "");
  EXPECT_EQ(role.base_image, "");
  EXPECT_TRUE(role.args.empty());
  EXPECT_TRUE(role.env.empty());
  EXPECT_EQ(role.num_replicas, 1);
  EXPECT_EQ(role.min_replicas, std::nullopt);
  EXPECT_EQ(role.max_retries, 0);
  EXPECT_EQ(role.retry_policy, RetryPolicy::kApplication);
  EXPECT_EQ(role.resource.cpu, -1);
  EXPECT_EQ(role.resource.gpu, -1);
  EXPECT_EQ(role.resource.mem_mb, -1);
  EXPECT_TRUE(role.port_map.empty());
  EXPECT_TRUE(role.mounts.empty());
  EXPECT_TRUE(role.metadata.empty());
}

TEST(AppDefTest, AnImageRoleMayLeaveTheEntrypointToTheImage) {
  EXPECT_EQ(read_appdef(app_with_role(R"(,"image":"i")")).roles[0].entrypoint, "");
  EXPECT_EQ(error_of(app_with_role("")),
            "roles[0].entrypoint: is required when the role has no image");
}

TEST(AppDefTest, IntegralDoublesAreIntegers) {
  EXPECT_EQ(
      read_appdef(app_with_role(R"(,"entrypoint":"e","num_replicas":2.0)")).roles[0].num_replicas,
      2);
}

TEST(AppDefTest, NamesTheFieldPathOfEachError) {
  EXPECT_EQ(error_of("[1]"), "sortie.appdef/1: expected a JSON object");
  EXPECT_EQ(error_of("{"),
            "sortie.appdef/1: invalid JSON at offset 1: Missing a name for "
            "object member.");
  EXPECT_EQ(error_of(R"({"name":"a"})"), "roles: the app has no roles");
  EXPECT_EQ(error_of(R"({"name":"a","roles":{}})"), "roles: must be an array");
  EXPECT_EQ(error_of(R"({"name":1,"roles":[]})"), "name: must be a string");
  EXPECT_EQ(error_of(R"({"name":"a","metadata":{"k":1},"roles":[]})"),
            "metadata.k: must be a string");
  EXPECT_EQ(error_of(R"({"roles":[7]})"), "roles[0]: must be an object");
  EXPECT_EQ(error_of(R"({"roles":[{"entrypoint":"e"}]})"), "roles[0].name: is required");
  EXPECT_EQ(error_of(R"({"roles":[{"name":"r","entrypoint":"e"},{"name":"r","entrypoint":"e"}]})"),
            "roles[1].name: 'r' is used twice");
  EXPECT_EQ(role_error(R"(,"image":3)"), "roles[0].image: must be a string");
  EXPECT_EQ(role_error(R"(,"base_image":[])"), "roles[0].base_image: must be a string");
  EXPECT_EQ(role_error(R"(,"args":"x")"), "roles[0].args: must be an array");
  EXPECT_EQ(role_error(R"(,"args":["a",1])"), "roles[0].args[1]: must be a string");
  EXPECT_EQ(role_error(R"(,"env":[])"), "roles[0].env: must be an object");
  EXPECT_EQ(role_error(R"(,"env":{"A":1})"), "roles[0].env.A: must be a string");
  EXPECT_EQ(role_error(R"(,"num_replicas":"2")"), "roles[0].num_replicas: must be an integer");
  EXPECT_EQ(role_error(R"(,"num_replicas":0)"), "roles[0].num_replicas: must be at least 1");
  EXPECT_EQ(role_error(R"(,"num_replicas":2,"min_replicas":3)"),
            "roles[0].min_replicas: must be between 1 and num_replicas (2), got 3");
  EXPECT_EQ(role_error(R"(,"min_replicas":0)"),
            "roles[0].min_replicas: must be between 1 and num_replicas (1), got 0");
  EXPECT_EQ(role_error(R"(,"max_retries":-1)"), "roles[0].max_retries: must be >= 0");
  EXPECT_EQ(role_error(R"(,"retry_policy":"HOST")"),
            R"(roles[0].retry_policy: expected "REPLICA", "APPLICATION" or "ROLE", got "HOST")");
  EXPECT_EQ(role_error(R"(,"retry_policy":1)"), "roles[0].retry_policy: must be a string");
  EXPECT_EQ(role_error(R"(,"resource":1)"), "roles[0].resource: must be an object");
  EXPECT_EQ(role_error(R"(,"resource":{"cpu":"1"})"), "roles[0].resource.cpu: must be a number");
  EXPECT_EQ(role_error(R"(,"resource":{"gpu":0.5})"), "roles[0].resource.gpu: must be an integer");
  EXPECT_EQ(role_error(R"(,"resource":{"memMB":"1G"})"),
            "roles[0].resource.memMB: must be an integer");
  EXPECT_EQ(role_error(R"(,"resource":{"capabilities":{"z":1}})"),
            "roles[0].resource.capabilities.z: must be a string");
  EXPECT_EQ(role_error(R"(,"resource":{"devices":{"fpga":-1}})"),
            "roles[0].resource.devices.fpga: must be a count >= 0");
  EXPECT_EQ(role_error(R"(,"port_map":{"http":0})"),
            "roles[0].port_map.http: must be a port number from 1 to 65535");
  EXPECT_EQ(role_error(R"(,"port_map":{"http":"80"})"),
            "roles[0].port_map.http: must be a port number from 1 to 65535");
  EXPECT_EQ(role_error(R"(,"mounts":{})"), "roles[0].mounts: must be an array");
  EXPECT_EQ(role_error(R"(,"mounts":[1])"), "roles[0].mounts[0]: must be an object");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"tmpfs","src":"/a","dst":"/b"}])"),
            R"(roles[0].mounts[0].type: expected "bind", "volume" or "device", got "tmpfs")");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"bind","dst":"/b"}])"),
            "roles[0].mounts[0].src: is required");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"bind","src":"a","dst":"/b"}])"),
            R"(roles[0].mounts[0].src: must be an absolute host path, got "a")");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"volume","src":"v","dst":"b"}])"),
            R"(roles[0].mounts[0].dst: must be an absolute path, got "b")");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"bind","src":"/a","dst":"/b","read_only":1}])"),
            "roles[0].mounts[0].read_only: must be true or false");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"device","src":"/dev/x","permissions":"rx"}])"),
            R"(roles[0].mounts[0].permissions: must use only r, w and m, got "rx")");
  EXPECT_EQ(role_error(R"(,"metadata":[])"), "roles[0].metadata: must be an object");
}

}  // namespace
}  // namespace sortie
