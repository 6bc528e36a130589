// write_appdef, write_role, write_resource and check_appdef (sortie/appdef.hpp): the host's
// payload text and its check of an app built in code.
#include <gtest/gtest.h>

#include <sortie/appdef.hpp>
#include <sortie/plugin.hpp>

namespace sortie {
namespace {

Role echo_role() {
  Role role;
  role.name = "echo";
  role.entrypoint = "echo";
  role.args = {"hi"};
  return role;
}

AppDef full_app() {
  AppDef app;
  app.name = "trainer";
  app.metadata = {{"team", "ml"}, {"owner", "a"}};
  Role role;
  role.name = "worker";
  role.image = "ghcr.io/acme/train:1";
  role.base_image = "python:3.11";
  role.entrypoint = "python3";
  role.args = {"-m", "train", "--rank=${replica_id}"};
  role.env = {{"RANK", "${replica_id}"}, {"LOGLEVEL", "INFO"}};
  role.num_replicas = 4;
  role.min_replicas = 2;
  role.max_retries = 3;
  role.retry_policy = RetryPolicy::kReplica;
  role.resource.cpu = 0.5;
  role.resource.gpu = 1;
  role.resource.mem_mb = 4096;
  role.resource.capabilities = {{"zone", "a"}};
  role.resource.devices = {{"vpc.amazonaws.com/efa", 4}};
  role.port_map = {{"tensorboard", 6006}, {"http", 80}};
  role.mounts = {Mount{MountType::kBind, "/data", "/mnt/data", true, "rwm"},
                 Mount{MountType::kVolume, "ckpt", "/ckpt", false, "rwm"},
                 Mount{MountType::kDevice, "/dev/fuse", "/dev/fuse", false, "rw"}};
  role.metadata = {{"z.tags", R"(["a","b"])"}, {"kubernetes.priority", "3"}};
  Role reader;
  reader.name = "reader";
  reader.entrypoint = "cat";
  app.roles = {role, reader};
  return app;
}

std::string check_error(const AppDef& app) {
  try {
    check_appdef(app);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "no error";
}

TEST(AppDefWriteTest, WritesTheDocumentedForms) {
  Resource resource;
  resource.cpu = 2;
  resource.gpu = 0;
  resource.mem_mb = 1024;
  EXPECT_EQ(write_resource(resource),
            R"({"schema":"sortie.resource/1","cpu":2,"gpu":0,"memMB":1024,"capabilities":{},)"
            R"("devices":{}})");
  EXPECT_EQ(
      write_role(echo_role()),
      R"({"schema":"sortie.role/1","name":"echo","image":"","base_image":null,)"
      R"("entrypoint":"echo","args":["hi"],"env":{},"num_replicas":1,"min_replicas":null,)"
      R"("max_retries":0,"retry_policy":"APPLICATION","resource":{"cpu":-1,"gpu":-1,)"
      R"("memMB":-1,"capabilities":{},"devices":{}},"port_map":{},"mounts":[],"metadata":{}})");
  AppDef app;
  app.name = "echo";
  app.roles = {echo_role()};
  // Roles inside an app carry no schema of their own.
  const std::string role_json = write_role(echo_role());
  EXPECT_EQ(write_appdef(app), R"({"schema":"sortie.appdef/1","name":"echo","metadata":{},)"
                               R"("roles":[{)" +
                                   role_json.substr(role_json.find("\"name\"")) + "]}");
}

// Maps are written sorted by name whatever order code added them in; role metadata keeps its
// order, values as the JSON they are.
TEST(AppDefWriteTest, SortsMapsAndKeepsRoleMetadataAsJson) {
  const std::string json = write_appdef(full_app());
  EXPECT_NE(json.find(R"("metadata":{"owner":"a","team":"ml"})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("env":{"LOGLEVEL":"INFO","RANK":"${replica_id}"})"), std::string::npos);
  EXPECT_NE(json.find(R"("port_map":{"http":80,"tensorboard":6006})"), std::string::npos);
  EXPECT_NE(json.find(R"("resource":{"cpu":0.5,"gpu":1,"memMB":4096,)"), std::string::npos);
  EXPECT_NE(json.find(R"("metadata":{"z.tags":["a","b"],"kubernetes.priority":3}})"),
            std::string::npos);
  EXPECT_NE(json.find(R"({"type":"device","src":"/dev/fuse","dst":"/dev/fuse",)"
                      R"("permissions":"rw"})"),
            std::string::npos);
}

TEST(AppDefWriteTest, WhatItWritesReadsBackTheSame) {
  const AppDef app = full_app();
  const AppDef back = read_appdef(write_appdef(app));
  ASSERT_EQ(back.roles.size(), 2U);
  EXPECT_EQ(back.roles[0].base_image, "python:3.11");
  EXPECT_EQ(back.roles[0].min_replicas, 2);
  EXPECT_EQ(back.roles[1].base_image, "");
  EXPECT_EQ(back.roles[1].min_replicas, std::nullopt);
  EXPECT_EQ(write_appdef(back), write_appdef(app));
}

TEST(AppDefWriteTest, SetValueReplacesOrAppends) {
  StringPairs env = {{"A", "1"}};
  set_value(env, "B", "2");
  set_value(env, "A", "3");
  EXPECT_EQ(env, (StringPairs{{"A", "3"}, {"B", "2"}}));
  ASSERT_NE(find_value(env, "B"), nullptr);
  EXPECT_EQ(*find_value(env, "B"), "2");
  EXPECT_EQ(find_value(env, "C"), nullptr);
}

// An app built in code hears what the same app in a payload hears.
TEST(AppDefWriteTest, CheckWordsErrorsAsTheReaderDoes) {
  EXPECT_EQ(check_error(full_app()), "no error");
  const auto with = [](const auto& change) {
    AppDef app = full_app();
    change(app, app.roles[0]);
    const std::string checked = check_error(app);
    try {
      read_appdef(write_appdef(app));
      ADD_FAILURE() << "the reader took what the check refused: " << checked;
    } catch (const Error& e) {
      EXPECT_EQ(checked, e.what());
    }
    return checked;
  };
  EXPECT_EQ(with([](AppDef& app, Role&) { app.name = ""; }), "name: is required");
  EXPECT_EQ(with([](AppDef& app, Role&) { app.roles.clear(); }),
            "roles: must hold at least one role");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.name = "reader"; }),
            R"(roles[1].name: "reader" is used twice; role names must be unique)");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.num_replicas = 0; }),
            "roles[0].num_replicas: must be at least 1, got 0");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.min_replicas = 5; }),
            "roles[0].min_replicas: must be between 1 and num_replicas (4), got 5");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.max_retries = -1; }),
            "roles[0].max_retries: must be at least 0, got -1");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.resource.cpu = -2; }),
            "roles[0].resource.cpu: must be at least 0 (or -1: unset), got -2");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.resource.gpu = -3; }),
            "roles[0].resource.gpu: must be at least 0 (or -1: unset), got -3");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.resource.mem_mb = -5; }),
            "roles[0].resource.memMB: must be at least 0 (or -1: unset), got -5");
  EXPECT_EQ(with([](AppDef&, Role& role) {
              role.resource.devices = {{"fpga", -1}};
            }),
            "roles[0].resource.devices.fpga: must be at least 0, got -1");
  EXPECT_EQ(with([](AppDef&, Role& role) {
              role.port_map = {{"http", 70000}};
            }),
            "roles[0].port_map.http: must be a port number from 1 to 65535, got 70000");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.mounts[0].src = ""; }),
            "roles[0].mounts[0].src: is required");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.mounts[1].dst = ""; }),
            "roles[0].mounts[1].dst: is required");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.min_replicas = 0; }),
            "roles[0].min_replicas: must be between 1 and num_replicas (4), got 0");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.name = ""; }), "roles[0].name: is required");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.mounts[0].dst = "rel"; }),
            R"(roles[0].mounts[0].dst: must be an absolute path, got "rel")");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.mounts[2].permissions = "x"; }),
            R"(roles[0].mounts[2].permissions: must use only r, w and m, got "x")");
  EXPECT_EQ(with([](AppDef&, Role& role) { role.args[1] = std::string("a\0b", 3); }),
            "roles[0].args[1]: holds a NUL character, which a program's arguments and "
            "environment cannot carry (the text would end there); remove it");
  AppDef no_entrypoint = full_app();
  no_entrypoint.roles[1].entrypoint = "";
  EXPECT_EQ(check_error(no_entrypoint),
            "roles[1].entrypoint: is required when the role has no image");
  // Role metadata must be JSON text: written raw, anything else would break the payload.
  AppDef bad_metadata = full_app();
  bad_metadata.roles[0].metadata = {{"k", "not json"}};
  EXPECT_EQ(check_error(bad_metadata), R"(roles[0].metadata.k: must be JSON text, got "not json")");
}

// The member lists (what strict readers such as YAML specs accept) name members the writer writes.
TEST(AppDefWriteTest, TheWriterWritesEveryListedMember) {
  const std::string json = write_appdef(full_app());
  for (const auto* members :
       {&appdef_members(), &role_members(), &resource_members(), &mount_members()}) {
    for (const std::string& name : *members) {
      EXPECT_NE(json.find("\"" + name + "\":"), std::string::npos) << name;
    }
  }
}

}  // namespace
}  // namespace sortie
