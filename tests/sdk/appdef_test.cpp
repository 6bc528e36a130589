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

TEST(AppDefTest, TheOutputDirIsReadWrittenAndAbsolute) {
  const std::string json = R"({"schema":"sortie.appdef/1","name":"a","output_dir":"/out/a-1",)"
                           R"("roles":[{"name":"r","entrypoint":"e"}]})";
  const AppDef app = read_appdef(json);
  EXPECT_EQ(app.output_dir, "/out/a-1");
  EXPECT_NE(write_appdef(app).find(R"("output_dir":"/out/a-1")"), std::string::npos);
  EXPECT_EQ(read_appdef(write_appdef(app)).output_dir, "/out/a-1");
  AppDef none = app;
  none.output_dir.clear();
  EXPECT_EQ(write_appdef(none).find("output_dir"), std::string::npos);
  EXPECT_EQ(error_of(R"({"schema":"sortie.appdef/1","name":"a","output_dir":"out",)"
                     R"("roles":[{"name":"r","entrypoint":"e"}]})"),
            R"(output_dir: must be an absolute path, got "out")");
  AppDef relative = app;
  relative.output_dir = "out";
  EXPECT_THROW(check_appdef(relative), Error);
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

// A number outside int64 or with a fraction is refused, never cast (casting it is undefined).
TEST(AppDefTest, RefusesNumbersThatAreNoInt64) {
  EXPECT_EQ(role_error(R"(,"num_replicas":8.1e56)"),
            "roles[0].num_replicas: expected an integer, got 8.1e56");
  EXPECT_EQ(role_error(R"(,"resource":{"memMB":-1e300})"),
            "roles[0].resource.memMB: expected an integer, got -1e300");
  EXPECT_EQ(role_error(R"(,"port_map":{"http":1.5})"),
            "roles[0].port_map.http: expected an integer, got 1.5");
  EXPECT_EQ(role_error(R"(,"max_retries":9223372036854775808.0)"),
            "roles[0].max_retries: expected an integer, got 9223372036854776000.0");
  EXPECT_EQ(role_error(R"(,"max_retries":-9223372036854775808.0)"),
            "roles[0].max_retries: must be at least 0, got -9223372036854775808");
}

TEST(AppDefTest, NamesTheFieldPathOfEachError) {
  EXPECT_EQ(error_of("[1]"), "sortie.appdef/1: expected a JSON object");
  EXPECT_EQ(error_of("{"),
            "sortie.appdef/1: invalid JSON at offset 1: Missing a name for "
            "object member.");
  EXPECT_EQ(error_of(R"({"schema":"sortie.appdef/2","name":"a"})"),
            R"(schema: expected "sortie.appdef/1", got "sortie.appdef/2" (a payload of another )"
            "kind or major version)");
  EXPECT_EQ(error_of(R"({"roles":[]})"), "name: is required");
  EXPECT_EQ(error_of(R"({"name":"a"})"), "roles: is required");
  EXPECT_EQ(error_of(R"({"name":"a","roles":[]})"), "roles: must hold at least one role");
  EXPECT_EQ(error_of(R"({"name":"a","roles":{}})"), "roles: expected an array, got an object");
  EXPECT_EQ(error_of(R"({"name":1,"roles":[]})"), "name: expected a string, got 1");
  EXPECT_EQ(error_of(R"({"name":"a","metadata":{"k":1},"roles":[]})"),
            "metadata.k: expected a string, got 1");
  EXPECT_EQ(error_of(R"({"name":"a","roles":[7]})"), "roles[0]: expected an object, got 7");
  EXPECT_EQ(error_of(R"({"name":"a","roles":[{"entrypoint":"e"}]})"), "roles[0].name: is required");
  EXPECT_EQ(error_of(R"({"name":"a","roles":[{"schema":"sortie.resource/1","name":"r"}]})"),
            R"(roles[0].schema: expected "sortie.role/1", got "sortie.resource/1" (a payload of )"
            "another kind or major version)");
  EXPECT_EQ(error_of(R"({"name":"a","roles":[{"name":"r","entrypoint":"e"},)"
                     R"({"name":"r","entrypoint":"e"}]})"),
            R"(roles[1].name: "r" is used twice; role names must be unique)");
  EXPECT_EQ(role_error(R"(,"image":3)"), "roles[0].image: expected a string, got 3");
  EXPECT_EQ(role_error(R"(,"base_image":[])"),
            "roles[0].base_image: expected a string, got an array");
  EXPECT_EQ(role_error(R"(,"args":"x")"), R"(roles[0].args: expected an array, got "x")");
  EXPECT_EQ(role_error(R"(,"args":["a",1])"), "roles[0].args[1]: expected a string, got 1");
  EXPECT_EQ(role_error(R"(,"env":[])"), "roles[0].env: expected an object, got an array");
  EXPECT_EQ(role_error(R"(,"env":{"A":1})"), "roles[0].env.A: expected a string, got 1");
  EXPECT_EQ(role_error(R"(,"num_replicas":"2")"),
            R"(roles[0].num_replicas: expected an integer, got "2")");
  EXPECT_EQ(role_error(R"(,"num_replicas":0)"), "roles[0].num_replicas: must be at least 1, got 0");
  EXPECT_EQ(role_error(R"(,"num_replicas":20000)"),
            "roles[0].num_replicas: 20000 exceeds the limit of 10000 replicas "
            "(docs/limits.md L-13); raise it with SORTIE_LIMIT_REPLICAS_PER_ROLE=<n>");
  EXPECT_EQ(role_error(R"(,"num_replicas":2,"min_replicas":3)"),
            "roles[0].min_replicas: must be between 1 and num_replicas (2), got 3");
  EXPECT_EQ(role_error(R"(,"min_replicas":0)"),
            "roles[0].min_replicas: must be between 1 and num_replicas (1), got 0");
  EXPECT_EQ(role_error(R"(,"max_retries":-1)"), "roles[0].max_retries: must be at least 0, got -1");
  EXPECT_EQ(role_error(R"(,"max_retries":2147483648)"),
            "roles[0].max_retries: must be at most 2147483647, got 2147483648");
  EXPECT_EQ(role_error(R"(,"retry_policy":"HOST")"),
            R"(roles[0].retry_policy: expected "REPLICA", "APPLICATION" or "ROLE", got "HOST")");
  EXPECT_EQ(role_error(R"(,"retry_policy":1)"), "roles[0].retry_policy: expected a string, got 1");
  EXPECT_EQ(role_error(R"(,"resource":1)"), "roles[0].resource: expected an object, got 1");
  EXPECT_EQ(role_error(R"(,"resource":{"cpu":"1"})"),
            R"(roles[0].resource.cpu: expected a number, got "1")");
  EXPECT_EQ(role_error(R"(,"resource":{"cpu":-0.5})"),
            "roles[0].resource.cpu: must be at least 0 (or -1: unset), got -0.5");
  EXPECT_EQ(role_error(R"(,"resource":{"gpu":0.5})"),
            "roles[0].resource.gpu: expected an integer, got 0.5");
  EXPECT_EQ(role_error(R"(,"resource":{"gpu":-2})"),
            "roles[0].resource.gpu: must be at least 0 (or -1: unset), got -2");
  EXPECT_EQ(role_error(R"(,"resource":{"memMB":"1G"})"),
            R"(roles[0].resource.memMB: expected an integer, got "1G")");
  EXPECT_EQ(role_error(R"(,"resource":{"capabilities":{"z":1}})"),
            "roles[0].resource.capabilities.z: expected a string, got 1");
  EXPECT_EQ(role_error(R"(,"resource":{"devices":{"fpga":-1}})"),
            "roles[0].resource.devices.fpga: must be at least 0, got -1");
  EXPECT_EQ(role_error(R"(,"port_map":{"http":0})"),
            "roles[0].port_map.http: must be a port number from 1 to 65535, got 0");
  EXPECT_EQ(role_error(R"(,"port_map":{"http":"80"})"),
            R"(roles[0].port_map.http: expected an integer, got "80")");
  EXPECT_EQ(role_error(R"(,"mounts":{})"), "roles[0].mounts: expected an array, got an object");
  EXPECT_EQ(role_error(R"(,"mounts":[1])"), "roles[0].mounts[0]: expected an object, got 1");
  EXPECT_EQ(role_error(R"(,"mounts":[{"src":"/a","dst":"/b"}])"),
            R"(roles[0].mounts[0].type: is required ("bind", "volume" or "device"))");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"tmpfs","src":"/a","dst":"/b"}])"),
            R"(roles[0].mounts[0].type: expected "bind", "volume" or "device", got "tmpfs")");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"bind","dst":"/b"}])"),
            "roles[0].mounts[0].src: is required");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"bind","src":"/a"}])"),
            "roles[0].mounts[0].dst: is required");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"bind","src":"a","dst":"/b"}])"),
            R"(roles[0].mounts[0].src: must be an absolute host path, got "a")");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"volume","src":"v","dst":"b"}])"),
            R"(roles[0].mounts[0].dst: must be an absolute path, got "b")");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"bind","src":"/a","dst":"/b","read_only":1}])"),
            "roles[0].mounts[0].read_only: expected true or false, got 1");
  EXPECT_EQ(role_error(R"(,"mounts":[{"type":"device","src":"/dev/x","permissions":"rx"}])"),
            R"(roles[0].mounts[0].permissions: must use only r, w and m, got "rx")");
  EXPECT_EQ(role_error(R"(,"metadata":[])"), "roles[0].metadata: expected an object, got an array");
}

// A program's argv and environment are C strings: a NUL in one would silently cut it (issue 26
// A8), so the reader refuses it, naming the field.
TEST(AppDefTest, ANulInAnArgumentEnvironmentOrEntrypointIsRefused) {
  const std::string refused =
      ": holds a NUL character, which a program's arguments and environment cannot carry (the "
      "text would end there); remove it";
  EXPECT_EQ(error_of(app_with_role(R"(,"entrypoint":"ec\u0000ho")")),
            "roles[0].entrypoint" + refused);
  EXPECT_EQ(role_error(R"(,"args":["a","b\u0000c"])"), "roles[0].args[1]" + refused);
  EXPECT_EQ(role_error(R"(,"env":{"K":"v\u0000w"})"), "roles[0].env.K" + refused);
  EXPECT_EQ(role_error(R"(,"env":{"K\u0000L":"v"})"), "roles[0].env" + refused);
}

// ScalarForm::kText: numbers and booleans may arrive as text (YAML specs the host converts);
// what is not one still fails with the same words as a typed payload.
TEST(AppDefTest, TextScalarsReadNumbersAndBooleansFromStrings) {
  const std::string app = app_with_role(
      R"(,"entrypoint":"e","num_replicas":"3","max_retries":"2","resource":{"cpu":"0.5",)"
      R"("gpu":"1","memMB":"1024","devices":{"fpga":"2"}},"port_map":{"http":"80"},)"
      R"("mounts":[{"type":"bind","src":"/a","dst":"/b","read_only":"true"}],)"
      R"("args":["2"],"metadata":{"m":"4"})");
  const Role role = read_appdef(app, ScalarForm::kText).roles[0];
  EXPECT_EQ(role.num_replicas, 3);
  EXPECT_EQ(role.max_retries, 2);
  EXPECT_EQ(role.resource.cpu, 0.5);
  EXPECT_EQ(role.resource.gpu, 1);
  EXPECT_EQ(role.resource.mem_mb, 1024);
  EXPECT_EQ(role.resource.devices, (CountPairs{{"fpga", 2}}));
  EXPECT_EQ(role.port_map, (CountPairs{{"http", 80}}));
  EXPECT_TRUE(role.mounts[0].read_only);
  EXPECT_EQ(role.args, std::vector<std::string>{"2"});       // strings stay strings
  EXPECT_EQ(role.metadata, (StringPairs{{"m", R"("4")"}}));  // metadata is kept as written
  try {
    read_appdef(app_with_role(R"(,"entrypoint":"e","num_replicas":"two")"), ScalarForm::kText);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), R"(roles[0].num_replicas: expected an integer, got "two")");
  }
  EXPECT_EQ(error_of(app), R"(roles[0].num_replicas: expected an integer, got "3")");
  // YAML 1.2's core schema: these read as numbers and booleans, 0x10 and yes stay strings.
  const auto text_role = [](const std::string& members) {
    return read_appdef(app_with_role(R"(,"entrypoint":"e")" + members), ScalarForm::kText).roles[0];
  };
  EXPECT_EQ(text_role(R"(,"num_replicas":"010")").num_replicas, 10);
  EXPECT_EQ(text_role(R"(,"num_replicas":"1e1")").num_replicas, 10);
  EXPECT_EQ(text_role(R"(,"resource":{"cpu":".5"})").resource.cpu, 0.5);
  EXPECT_TRUE(text_role(R"(,"mounts":[{"type":"bind","src":"/a","dst":"/b","read_only":"True"}])")
                  .mounts[0]
                  .read_only);
  try {
    text_role(R"(,"mounts":[{"type":"bind","src":"/a","dst":"/b","read_only":"yes"}])");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), R"(roles[0].mounts[0].read_only: expected true or false, got "yes")");
  }
  try {
    text_role(R"(,"num_replicas":"0x10")");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), R"(roles[0].num_replicas: expected an integer, got "0x10")");
  }
}

TEST(AppDefTest, ReadsAResourceAlone) {
  const Resource resource =
      read_resource(R"({"schema":"sortie.resource/1","cpu":2,"gpu":1,"memMB":4096})");
  EXPECT_EQ(resource.cpu, 2);
  EXPECT_EQ(resource.gpu, 1);
  EXPECT_EQ(resource.mem_mb, 4096);
  try {
    read_resource(R"({"gpu":1.5})");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "gpu: expected an integer, got 1.5");
  }
}

}  // namespace
}  // namespace sortie
