#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/spec_file.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hostile_inputs.hpp"
#include "model_test_support.hpp"
#include "scoped_env.hpp"

namespace sortie::model {
namespace {

using testing::by_name;
using testing::error_of;
using testing::metadata_object;
using testing::mounts_json;
using testing::test_resources;

const std::string kExamples = std::string(SORTIE_TEST_SOURCE_DIR) + "/../../examples/specs/";

AppDef parse(const std::string& text) {
  return parse_app_spec(text, "spec.yaml", test_resources, {"gpu.small", "gpu.large", "cpu.nano"});
}

std::string parse_error(const std::string& text) {
  return error_of([&] { parse(text); });
}

// docs/limits.md L-4: a spec file is read up to its limit and no further.
TEST(SpecFileTest, SpecFilesPastTheSizeLimitAreRefused) {
  const std::string path = kExamples + "echo.yaml";
  const auto size = std::filesystem::file_size(path);
  {
    const sortie::testing::ScopedEnv at_size("SORTIE_LIMIT_SPEC_FILE_BYTES", std::to_string(size));
    EXPECT_EQ(load_app_spec(path, test_resources).name, "echo");
  }
  const sortie::testing::ScopedEnv below("SORTIE_LIMIT_SPEC_FILE_BYTES", std::to_string(size - 1));
  EXPECT_EQ(error_of([&] { load_app_spec(path, test_resources); }),
            path + ": the app spec exceeds the limit of " + std::to_string(size - 1) +
                " bytes (docs/limits.md L-4); raise it with SORTIE_LIMIT_SPEC_FILE_BYTES=<n>");
}

// docs/limits.md L-13 (F3 of issue 16: 2147483647 replicas made --dryrun grow past 24 GB).
TEST(SpecFileTest, ReplicasPerRoleAreLimited) {
  const auto spec = [](const std::string& replicas) {
    return "name: many\nroles:\n  - name: main\n    entrypoint: echo\n    num_replicas: " +
           replicas + "\n";
  };
  EXPECT_EQ(parse(spec("10000")).roles[0].num_replicas, 10000);
  EXPECT_EQ(parse_error(spec("2147483647")),
            "spec.yaml:5:19: roles[0].num_replicas: 2147483647 exceeds the limit of 10000 replicas "
            "(docs/limits.md L-13); raise it with SORTIE_LIMIT_REPLICAS_PER_ROLE=<n>");
  EXPECT_EQ(parse_error(spec("2147483648")),
            "spec.yaml:5:19: roles[0].num_replicas: must be at most 2147483647, got 2147483648");
  EXPECT_NE(parse_error(spec("10001")).find("num_replicas: 10001 exceeds"), std::string::npos);
}

// docs/limits.md L-2, L-3: spec YAML (and JSON, read by the same parser) is loaded within limits.
TEST(SpecFileTest, YamlPastTheLimitsIsRefused) {
  EXPECT_NE(parse_error(sortie::testing::nested_json_arrays(100000))
                .find("spec.yaml: line 1, column 129: the YAML nesting exceeds the limit of 128"),
            std::string::npos);
  EXPECT_NE(parse_error(sortie::testing::yaml_alias_bomb())
                .find("exceeds the limit of 100000 nodes (aliases expanded)"),
            std::string::npos);
}

// Issue 26, A1: "name: &n [*n]" is a list holding itself, and crashed `run --spec` with a stack
// overflow; a role aliased inside its own args grew to 2 GB first.
TEST(SpecFileTest, AnAliasInsideTheNodeItNamesIsRefused) {
  EXPECT_EQ(parse_error("name: &n [*n]\n"),
            "spec.yaml:1:11: an alias refers to a node that contains it (a cycle); *n is inside "
            "the node anchored &n at 1:7, and an alias may name only a node that ends before it");
  EXPECT_EQ(parse_error("name: r\nroles:\n  - &r\n    name: main\n    entrypoint: echo\n"
                        "    args: [*r]\n")
                .rfind("spec.yaml:6:12: an alias refers to a node that contains it (a cycle); "
                       "*r is inside the node anchored &r at 3:5",
                       0),
            0u);
  // An alias of a node that has ended is a copy of it.
  const AppDef copied = parse(
      "name: r\nroles:\n  - {name: a, entrypoint: echo, args: &args [hi]}\n"
      "  - {name: b, entrypoint: echo, args: *args}\n");
  ASSERT_EQ(copied.roles.size(), 2u);
  EXPECT_EQ(copied.roles[1].args, std::vector<std::string>{"hi"});
}

// Every input of the spec_file fuzz harness's corpus (tests/fuzz/corpus/spec_file/, where crash
// inputs stay as regressions) is read as the harness reads it, here in every test run: a spec or
// sortie::Error, never a crash or another exception.
TEST(SpecFileTest, TheFuzzCorpusIsReadOrRefused) {
  const std::filesystem::path corpus =
      std::filesystem::path(SORTIE_TEST_SOURCE_DIR) / ".." / "fuzz" / "corpus" / "spec_file";
  const auto no_resources = [](const std::string&) -> std::optional<Resource> {
    return std::nullopt;
  };
  size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    try {
      parse_app_spec(text.str(), "fuzz.yaml", no_resources, {});
    } catch (const Error&) {
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 2u);
}

TEST(SpecFileTest, LoadsTheEchoExample) {
  const AppDef app = load_app_spec(kExamples + "echo.yaml", test_resources);
  EXPECT_EQ(app.name, "echo");
  ASSERT_EQ(app.roles.size(), 1u);
  EXPECT_EQ(app.roles[0].entrypoint, "echo");
  EXPECT_EQ(app.roles[0].args, (std::vector<std::string>{"hello from", "${app_id}"}));
  EXPECT_EQ(app.roles[0].num_replicas, 1);
}

TEST(SpecFileTest, LoadsTheThreeRoleExample) {
  const AppDef app = load_app_spec(kExamples + "three_roles.yaml", test_resources);
  EXPECT_EQ(app.name, "pipeline");
  EXPECT_EQ(by_name(app.metadata).at("team"), "examples");
  ASSERT_EQ(app.roles.size(), 3u);
  const std::vector<std::string> names = {"reader", "trainer", "writer"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(app.roles[i].name, names[i]);
    EXPECT_EQ(app.roles[i].num_replicas, 2);
    ASSERT_EQ(app.roles[i].args.size(), 2u);
    EXPECT_EQ(app.roles[i].args[1], "echo ${role_name} replica ${replica_id} of ${app_id}");
  }
  EXPECT_EQ(app.roles[0].resource.mem_mb, 512);
  EXPECT_EQ(app.roles[1].resource.mem_mb, 1024);
  EXPECT_EQ(app.roles[1].resource.cpu, 2);
  EXPECT_EQ(app.roles[1].retry_policy, RetryPolicy::kReplica);
  EXPECT_EQ(by_name(app.roles[1].env).at("RANK"), "${replica_id}");
  EXPECT_TRUE(app.roles[2].mounts.empty());  // it runs on local_cwd, which cannot mount
}

TEST(SpecFileTest, LoadsTheKubernetesExampleWithItsMount) {
  const AppDef app = load_app_spec(kExamples + "k8s_distributed.yaml", test_resources);
  ASSERT_EQ(app.roles.size(), 1u);
  ASSERT_EQ(app.roles[0].mounts.size(), 1u);
  const Mount& mount = app.roles[0].mounts[0];
  EXPECT_EQ(mount.type, MountType::kVolume);
  EXPECT_EQ(mount.src, "datasets");
  EXPECT_EQ(mount.dst, "/data");
  EXPECT_TRUE(mount.read_only);
}

TEST(SpecFileTest, LoadsTheJsonExample) {
  const AppDef app = load_app_spec(kExamples + "trainer.json", test_resources);
  ASSERT_EQ(app.roles.size(), 1u);
  const Role& role = app.roles[0];
  EXPECT_EQ(role.num_replicas, 2);
  EXPECT_EQ(role.port_map, (CountPairs{{"tensorboard", 6006}}));
  EXPECT_EQ(role.resource.mem_mb, 1024);
  EXPECT_EQ(metadata_object(role), R"({"note":"metadata keeps any JSON","priority":3})");
}

TEST(SpecFileTest, ReadsTheJsonFormOfAnAppDef) {
  AppDef app;
  app.name = "round";
  Role role;
  role.name = "r";
  role.entrypoint = "e";
  role.args = {"1", "${app_id}"};
  role.min_replicas = 1;
  role.resource.cpu = 0.25;
  role.mounts = {Mount{MountType::kDevice, "/dev/fuse", "/dev/fuse", false, "rw"}};
  role.metadata = {{"a", R"({"b":[1,"2",null,false]})"}};
  app.roles = {role};
  const std::string text = write_appdef(app);
  EXPECT_EQ(write_appdef(parse_app_spec(text, "app.json", nullptr)), text);
}

TEST(SpecFileTest, ResolvesNamedResources) {
  const AppDef app = parse(
      "name: a\nroles:\n  - name: r\n    entrypoint: e\n"
      "    resource: gpu.small\n");
  EXPECT_EQ(app.roles[0].resource.gpu, 1);
  EXPECT_EQ(app.roles[0].resource.mem_mb, 32768);
}

TEST(SpecFileTest, UnknownNamedResourceListsCloseNames) {
  EXPECT_EQ(parse_error("name: a\nroles:\n  - name: r\n    entrypoint: e\n"
                        "    resource: gpu.smal\n"),
            "spec.yaml:5:15: roles[0].resource: unknown named resource 'gpu.smal' (did you mean "
            "'gpu.small'?)");
  EXPECT_EQ(error_of([] {
              parse_app_spec("name: a\nroles: [{name: r, entrypoint: e, resource: gpu.small}]",
                             "s.yaml", nullptr);
            }),
            "s.yaml:2:44: roles[0].resource: named resource 'gpu.small' cannot be resolved here; "
            "give a mapping (cpu, gpu, mem_mb) instead");
}

TEST(SpecFileTest, AcceptsMemMbInBothSpellings) {
  EXPECT_EQ(parse("name: a\nroles: [{name: r, entrypoint: e, resource: {memMB: 10}}]")
                .roles[0]
                .resource.mem_mb,
            10);
  EXPECT_EQ(parse("name: a\nroles: [{name: r, entrypoint: e, resource: {mem_mb: 20}}]")
                .roles[0]
                .resource.mem_mb,
            20);
  EXPECT_EQ(
      parse_error("name: a\nroles: [{name: r, entrypoint: e, resource: {mem_mb: 1, memMB: 2}}]"),
      "spec.yaml:2:63: roles[0].resource.memMB: give either mem_mb or memMB, not both");
}

TEST(SpecFileTest, UnknownKeysAreErrorsWithSuggestions) {
  EXPECT_EQ(parse_error("name: a\nroles:\n  - name: r\n    entrypont: e\n"),
            "spec.yaml:4:5: roles[0].entrypont: unknown key (did you mean 'entrypoint'?); the keys "
            "here are 'name', 'image', 'base_image', 'entrypoint', 'args', 'env', 'num_replicas', "
            "'min_replicas', 'max_retries', 'retry_policy', 'resource', 'port_map', 'mounts', "
            "'metadata'");
  EXPECT_EQ(parse_error("name: a\nrole: []\n"),
            "spec.yaml:2:1: role: unknown key (did you mean 'roles'?); the keys here are 'schema', "
            "'name', 'metadata', 'roles'");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e, resource: {cpus: 1}}]"),
            "spec.yaml:2:45: roles[0].resource.cpus: unknown key (did you mean 'cpu' or 'gpu'?); "
            "the keys here are 'cpu', 'gpu', 'mem_mb', 'memMB', 'capabilities', 'devices'");
  EXPECT_EQ(parse_error("name: a\nname: b\nroles: []\n"),
            "spec.yaml:2:1: name: the key appears twice; keep one");
}

TEST(SpecFileTest, TypeErrorsCarryLineColumnAndPath) {
  EXPECT_EQ(parse_error("name: a\nroles:\n  - name: r\n    entrypoint: e\n    num_replicas: two\n"),
            R"(spec.yaml:5:19: roles[0].num_replicas: expected an integer, got "two")");
  EXPECT_EQ(parse_error("name: a\nroles:\n  - name: r\n    entrypoint: e\n    args: echo hi\n"),
            R"(spec.yaml:5:11: roles[0].args: expected an array, got "echo hi")");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e, env: {A: [1]}}]"),
            "spec.yaml:2:43: roles[0].env.A: expected a string, got an array");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e, env: y}]"),
            R"(spec.yaml:2:39: roles[0].env: expected an object, got "y")");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e, retry_policy: SOMETIMES}]"),
            R"(spec.yaml:2:48: roles[0].retry_policy: expected "REPLICA", "APPLICATION" or )"
            R"("ROLE", got "SOMETIMES")");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e, resource: {cpu: lots}}]"),
            R"(spec.yaml:2:50: roles[0].resource.cpu: expected a number, got "lots")");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e, port_map: {http: x}}]"),
            R"(spec.yaml:2:51: roles[0].port_map.http: expected an integer, got "x")");
  EXPECT_EQ(parse_error("name: a\nroles: {name: r}\n"),
            "spec.yaml:2:8: roles: expected an array, got an object");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r}]\n"),
            "spec.yaml:2:9: roles[0].entrypoint: is required when the role has no image");
  EXPECT_EQ(parse_error("roles: []\n"), "spec.yaml:1:1: name: is required");
  EXPECT_EQ(parse_error("name: a\n"), "spec.yaml:1:1: roles: is required");
  EXPECT_EQ(parse_error("- a\n"), "spec.yaml:1:1: expected a mapping, got a list");
}

TEST(SpecFileTest, JsonErrorsCarryLinesToo) {
  EXPECT_EQ(error_of([] {
              parse_app_spec(
                  "{\n  \"name\": \"a\",\n  \"roles\": [{\"name\": \"r\",\n"
                  "    \"entrypoint\": \"e\", \"max_retries\": -1}]\n}\n",
                  "spec.json", nullptr);
            }),
            "spec.json:4:39: roles[0].max_retries: must be at least 0, got -1");
}

TEST(SpecFileTest, SyntaxErrorsAndEmptySpecs) {
  EXPECT_EQ(parse_error("name: a\nroles: [\n"),
            "spec.yaml:3:1: invalid YAML/JSON: end of sequence flow not found");
  EXPECT_EQ(parse_error(""), "spec.yaml: the app spec is empty");
}

// P-2: an image may run its own ENTRYPOINT, in a spec as in a payload.
TEST(SpecFileTest, AnImageRoleMayLeaveOutTheEntrypoint) {
  EXPECT_EQ(parse("name: a\nroles: [{name: r, image: busybox}]").roles[0].entrypoint, "");
}

TEST(SpecFileTest, ChecksAcrossFieldsCarryLinesToo) {
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e}, {name: r, entrypoint: f}]"),
            R"(spec.yaml:2:42: roles[1].name: "r" is used twice; role names must be unique)");
  EXPECT_EQ(parse_error("name: a\nroles: [{name: r, entrypoint: e, num_replicas: 2, "
                        "min_replicas: 3}]"),
            "spec.yaml:2:65: roles[0].min_replicas: must be between 1 and num_replicas (2), got 3");
}

TEST(SpecFileTest, ReadsTorchxMountStrings) {
  const AppDef app = parse(
      "name: a\nroles:\n  - name: r\n    entrypoint: e\n    mounts:\n"
      "      - type=bind,src=/a,dst=/b,readonly\n"
      "      - "
      "type=volume,source=cache,target=/cache,type=bind,src=/x,destination=/y,read_only=false\n"
      "      - type=device,src=/dev/fuse,perm=rw\n"
      "      - {type: bind, src: /c, dst: /d, read_only: true}\n");
  EXPECT_EQ(mounts_json(app.roles[0]),
            R"([{"type":"bind","src":"/a","dst":"/b","read_only":true},)"
            R"({"type":"volume","src":"cache","dst":"/cache","read_only":false},)"
            R"({"type":"bind","src":"/x","dst":"/y","read_only":false},)"
            R"({"type":"device","src":"/dev/fuse","dst":"/dev/fuse","permissions":"rw"},)"
            R"({"type":"bind","src":"/c","dst":"/d","read_only":true}])");
}

TEST(SpecFileTest, MountErrorsNameTheEntry) {
  const std::string head = "name: a\nroles:\n  - name: r\n    entrypoint: e\n    mounts:\n      - ";
  EXPECT_EQ(parse_error(head + "src=/a,dst=/b\n"),
            "spec.yaml:6:9: roles[0].mounts[0]: a mount string must start with "
            "type=bind|volume|device");
  EXPECT_EQ(parse_error(head + "type=nfs,src=/a\n"),
            R"(spec.yaml:6:9: roles[0].mounts[0].type: expected "bind", "volume" or "device", )"
            R"(got "nfs")");
  EXPECT_EQ(parse_error(head + "type=bind,src=/a\n"),
            "spec.yaml:6:9: roles[0].mounts[0].dst: is required");
  EXPECT_EQ(parse_error(head + "type=bind,dst=/a\n"),
            "spec.yaml:6:9: roles[0].mounts[0].src: is required");
  EXPECT_EQ(
      parse_error(head + "type=device,src=/dev/x,perm=rwx\n"),
      R"(spec.yaml:6:9: roles[0].mounts[0].permissions: must use only r, w and m, got "rwx")");
  EXPECT_EQ(parse_error(head + "type=bind,src=data,dst=/d\n"),
            R"(spec.yaml:6:9: roles[0].mounts[0].src: must be an absolute host path, got "data")");
  EXPECT_EQ(parse_error(head + "type=bind,src=/a,dts=/b\n"),
            "spec.yaml:6:9: roles[0].mounts[0]: unknown mount option 'dts' (did you mean 'dst'?)");
  EXPECT_EQ(parse_error(head + "type=bind,src=/a,dst=/b,readonly=maybe\n"),
            "spec.yaml:6:9: roles[0].mounts[0]: 'readonly=maybe': readonly takes no value, or "
            "true/false");
  EXPECT_EQ(parse_error(head + "{type: bind, src: /a, dst: /b, readonly: true}\n"),
            "spec.yaml:6:40: roles[0].mounts[0].readonly: unknown key (did you mean "
            "'read_only'?); the keys here are 'type', 'src', 'dst', 'read_only', 'permissions'");
  EXPECT_EQ(
      parse_error(head + "{src: /a, dst: /b}\n"),
      R"(spec.yaml:6:9: roles[0].mounts[0].type: is required ("bind", "volume" or "device"))");
}

TEST(SpecFileTest, RoleMetadataKeepsYamlScalarTypes) {
  const AppDef app = parse(
      "name: a\nroles:\n  - name: r\n    entrypoint: e\n    metadata:\n"
      "      priority: 3\n      ratio: 0.5\n      enabled: true\n      label: \"3\"\n"
      "      none: null\n      tags: [x, 2]\n");
  EXPECT_EQ(metadata_object(app.roles[0]),
            R"({"priority":3,"ratio":0.5,"enabled":true,"label":"3","none":null,"tags":["x",2]})");
}

TEST(SpecFileTest, MissingFileIsNotFound) {
  try {
    load_app_spec("/nonexistent/spec.yaml", nullptr);
    FAIL() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), SORTIE_NOT_FOUND);
    EXPECT_STREQ(e.what(),
                 "cannot read app spec '/nonexistent/spec.yaml': No such file or directory");
  }
}

}  // namespace
}  // namespace sortie::model
