#include <gtest/gtest.h>

#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <string>

#include "model_test_support.hpp"

namespace sortie::model {
namespace {

using testing::error_of;

// The SDK reads and writes the documents (tests/sdk); these are the host's readers with the
// document's origin in front of each error.

TEST(ModelJsonTest, ErrorsNameOriginAndJsonPath) {
  EXPECT_EQ(error_of([] {
              appdef_from_json(R"({"name":"a","roles":[{"name":"r","entrypoint":"e"},
                                  {"name":"s","entrypoint":"e","num_replicas":"two"}]})",
                               "spec.json");
            }),
            R"(spec.json: roles[1].num_replicas: expected an integer, got "two")");
  EXPECT_EQ(error_of([] {
              appdef_from_json(
                  R"({"name":"a","roles":[{"name":"r","entrypoint":"e","args":["x",3]}]})",
                  "plugin docker");
            }),
            "plugin docker: roles[0].args[1]: expected a string, got 3");
  EXPECT_EQ(error_of([] { appdef_from_json(R"({"name":"a","roles":[{"name":"r"}]})", "o"); }),
            "o: roles[0].entrypoint: is required when the role has no image");
  EXPECT_EQ(error_of([] { appdef_from_json(R"({"roles":[]})", "o"); }), "o: name: is required");
  EXPECT_EQ(error_of([] { appdef_from_json(R"({"name":"a"})", "o"); }), "o: roles: is required");
  EXPECT_EQ(error_of([] { appdef_from_json(R"([1])", "o"); }),
            "o: sortie.appdef/1: expected a JSON object");
  EXPECT_EQ(
      error_of([] {
        appdef_from_json(R"({"name":"a","roles":[{"name":"r","entrypoint":"e",
                                  "retry_policy":"ALWAYS"}]})",
                         "o");
      }),
      R"(o: roles[0].retry_policy: expected "REPLICA", "APPLICATION" or "ROLE", got "ALWAYS")");
  EXPECT_EQ(error_of([] {
              appdef_from_json(R"({"name":"a","roles":[{"name":"r","entrypoint":"e",
                                  "resource":{"memMB":"1G"}}]})",
                               "o");
            }),
            R"(o: roles[0].resource.memMB: expected an integer, got "1G")");
  EXPECT_EQ(error_of([] {
              appdef_from_json(R"({"name":"a","roles":[{"name":"r","entrypoint":"e",
                                  "mounts":[{"type":"nfs","src":"a","dst":"b"}]}]})",
                               "o");
            }),
            R"(o: roles[0].mounts[0].type: expected "bind", "volume" or "device", got "nfs")");
  EXPECT_EQ(error_of([] {
              appdef_from_json(R"({"name":"a","roles":[{"name":"r","entrypoint":"e",
                                  "env":{"A":1}}]})",
                               "o");
            }),
            "o: roles[0].env.A: expected a string, got 1");
  EXPECT_EQ(error_of([] {
              appdef_from_json(R"({"name":"a","roles":[{"name":"r","entrypoint":"e",
                                  "metadata":[1]}]})",
                               "o");
            }),
            "o: roles[0].metadata: expected an object, got an array");
  EXPECT_EQ(error_of([] { appdef_from_json(R"({"name": )", "o"); }),
            "o: sortie.appdef/1: invalid JSON at offset 9: Invalid value.");
  EXPECT_EQ(error_of([] { appdef_from_json(R"({"schema":"sortie.appdef/2","name":"a"})", "o"); }),
            R"(o: schema: expected "sortie.appdef/1", got "sortie.appdef/2" (a payload of )"
            "another kind or major version)");
}

TEST(ModelJsonTest, ResourceRoundTripsAndReportsErrors) {
  Resource res;
  res.cpu = 1.5;
  res.gpu = 2;
  res.mem_mb = 8192;
  res.capabilities = {{"arch", "arm64"}};
  res.devices = {{"neuron", 1}};
  EXPECT_EQ(write_resource(resource_from_json(write_resource(res), "test")), write_resource(res));
  EXPECT_EQ(write_resource(resource_from_json(R"({"cpu":null})", "test")),
            write_resource(Resource{}));
  EXPECT_EQ(error_of([] { resource_from_json(R"({"gpu":1.5})", "named resource gpu.x"); }),
            "named resource gpu.x: gpu: expected an integer, got 1.5");
  EXPECT_EQ(error_of([] { resource_from_json(R"({"cpu":-3})", "r"); }),
            "r: cpu: must be at least 0 (or -1: unset), got -3");
  EXPECT_EQ(error_of([] { resource_from_json(R"({"devices":{"efa":-1}})", "r"); }),
            "r: devices.efa: must be at least 0, got -1");
}

TEST(ModelJsonTest, StatusRoundTripsWithKnownAndUnknownValues) {
  AppStatus status;
  status.app_id = "trainer-k3x9q2";
  status.state = AppState::kRunning;
  status.num_restarts = 1;
  status.msg = "ok";
  status.ui_url = "file:///tmp/x";
  status.structured_error_msg = "{}";
  RoleStatus role;
  role.role = "trainer";
  ReplicaStatus running;
  running.id = 0;
  running.state = AppState::kRunning;
  running.pid = 4242;
  running.hostname = "localhost";
  running.started_at = 1700000000000000000;
  ReplicaStatus failed;
  failed.id = 1;
  failed.state = AppState::kFailed;
  failed.exit_code = -9;
  failed.restarts = 2;
  failed.finished_at = 1700000000000000001;
  failed.msg = "killed";
  role.replicas = {running, failed};
  status.roles = {role};

  const AppStatus back = status_from_json(write_status(status), "test");
  EXPECT_EQ(back.app_id, status.app_id);
  EXPECT_EQ(back.state, AppState::kRunning);
  EXPECT_EQ(back.num_restarts, 1);
  EXPECT_EQ(back.msg, "ok");
  EXPECT_EQ(back.ui_url, "file:///tmp/x");
  EXPECT_EQ(back.structured_error_msg, "{}");
  ASSERT_EQ(back.roles.size(), 1u);
  ASSERT_EQ(back.roles[0].replicas.size(), 2u);
  const ReplicaStatus& r0 = back.roles[0].replicas[0];
  const ReplicaStatus& r1 = back.roles[0].replicas[1];
  EXPECT_EQ(r0.pid, 4242);
  EXPECT_EQ(r0.exit_code, std::nullopt);
  EXPECT_EQ(r0.started_at, 1700000000000000000);
  EXPECT_EQ(r0.finished_at, std::nullopt);
  EXPECT_EQ(r0.hostname, "localhost");
  EXPECT_EQ(r1.state, AppState::kFailed);
  EXPECT_EQ(r1.pid, std::nullopt);
  EXPECT_EQ(r1.exit_code, -9);
  EXPECT_EQ(r1.restarts, 2);
  EXPECT_EQ(r1.msg, "killed");
  EXPECT_EQ(write_status(back), write_status(status));
  EXPECT_NE(write_status(status).find(R"("exit_code":null)"), std::string::npos);
}

TEST(ModelJsonTest, ReadsTheDocumentedStatusExample) {
  const AppStatus status = status_from_json(
      R"({"schema": "sortie.status/1", "app_id": "trainer-k3x9q2", "state": "RUNNING",
          "num_restarts": 0, "msg": "", "ui_url": "file:///...", "structured_error_msg": "",
          "roles": [{"role": "trainer", "replicas": [
            {"id": 0, "state": "RUNNING", "pid": 4242, "exit_code": null, "hostname": "localhost",
             "restarts": 0, "started_at": 1700000000000000000, "finished_at": null, "msg": ""}]}],
          "metadata": {}})",
      "plugin local");
  EXPECT_EQ(status.roles.at(0).replicas.at(0).pid, 4242);
  EXPECT_EQ(status.roles.at(0).replicas.at(0).exit_code, std::nullopt);
  const AppStatus minimal = status_from_json(
      R"({"schema":"sortie.status/1","app_id":"x","state":"PENDING",
          "roles":[{"role":"r","replicas":[{"id":0,"state":"PENDING"}]}]})",
      "plugin local");
  EXPECT_EQ(minimal.state, AppState::kPending);
  EXPECT_EQ(minimal.roles.at(0).replicas.at(0).pid, std::nullopt);
}

TEST(ModelJsonTest, StatusErrorsNameThePath) {
  EXPECT_EQ(error_of([] { status_from_json(R"({"app_id":"x","state":"DONE"})", "plugin p"); }),
            R"(plugin p: state: expected one of UNSUBMITTED, SUBMITTED, PENDING, RUNNING, )"
            R"(SUCCEEDED, FAILED, CANCELLED, UNKNOWN, got "DONE")");
  EXPECT_EQ(error_of([] { status_from_json(R"({"app_id":"x"})", "plugin p"); }),
            "plugin p: state: is required");
  EXPECT_EQ(error_of([] {
              status_from_json(R"({"app_id":"x","state":"RUNNING",
                                  "roles":[{"role":"r","replicas":[{"id":0,"pid":"12"}]}]})",
                               "plugin p");
            }),
            R"(plugin p: roles[0].replicas[0].pid: expected an integer, got "12")");
  EXPECT_EQ(error_of([] {
              status_from_json(R"({"app_id":"x","state":"RUNNING",
                                  "roles":[{"role":"r","replicas":[{"exit_code":1.5}]}]})",
                               "plugin p");
            }),
            "plugin p: roles[0].replicas[0].exit_code: expected an integer, got 1.5");
  EXPECT_EQ(error_of([] { status_from_json(R"({"schema":"sortie.list/1"})", "plugin p"); }),
            R"(plugin p: schema: expected "sortie.status/1", got "sortie.list/1" (a payload of )"
            "another kind or major version)");
}

}  // namespace
}  // namespace sortie::model
