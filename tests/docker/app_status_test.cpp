#include "app_status.hpp"

#include <gtest/gtest.h>

namespace sortie::docker {
namespace {

ReplicaStatus from(const std::string& state_json) {
  rapidjson::Document inspect;
  const std::string text = R"({"Name":"/app-worker-0","RestartCount":1,)"
                           R"("Config":{"Hostname":"worker-0","StopTimeout":5},"State":)" +
                           state_json + "}";
  inspect.Parse(text.c_str());
  return replica_from_inspect(inspect);
}

TEST(DockerAppStatus, MapsContainerStatesOntoReplicaStates) {
  const ReplicaStatus running =
      from(R"({"Status":"running","Pid":42,"ExitCode":0,"StartedAt":"2024-05-01T10:00:00.25Z",)"
           R"("FinishedAt":"0001-01-01T00:00:00Z"})");
  EXPECT_EQ(running.state, "RUNNING");
  EXPECT_EQ(running.pid, 42);
  EXPECT_TRUE(running.live);
  EXPECT_EQ(running.started_at, 1714557600250000000);
  EXPECT_FALSE(running.finished_at.has_value());
  EXPECT_EQ(running.hostname, "worker-0");
  EXPECT_EQ(running.container, "app-worker-0");
  EXPECT_EQ(running.stop_timeout_s, 5);

  EXPECT_EQ(from(R"({"Status":"created","ExitCode":0})").state, "PENDING");
  const ReplicaStatus bad_command = from(
      R"({"Status":"created","ExitCode":127,"Error":"exec: \"x\": executable file not found"})");
  EXPECT_EQ(bad_command.state, "FAILED");
  EXPECT_EQ(bad_command.exit_code, 127);
  EXPECT_NE(bad_command.msg.find("executable file not found"), std::string::npos);

  const ReplicaStatus exited = from(R"({"Status":"exited","ExitCode":3})");
  EXPECT_EQ(exited.state, "FAILED");
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_EQ(from(R"({"Status":"exited","ExitCode":0})").state, "SUCCEEDED");
  const ReplicaStatus oom = from(R"({"Status":"exited","ExitCode":137,"OOMKilled":true})");
  EXPECT_EQ(oom.state, "FAILED");
  EXPECT_NE(oom.msg.find("OOM"), std::string::npos);
  EXPECT_EQ(from(R"({"Status":"dead","ExitCode":0})").state, "FAILED");
  const ReplicaStatus restarting = from(R"({"Status":"restarting","ExitCode":1})");
  EXPECT_EQ(restarting.state, "PENDING");
  EXPECT_EQ(restarting.restarts, 1);
}

TEST(DockerAppStatus, DerivesTheAppState) {
  AppStatus app;
  app.roles.push_back({"a", {ReplicaStatus{}, ReplicaStatus{}}});
  app.roles[0].replicas[0].state = "SUCCEEDED";
  app.roles[0].replicas[1].state = "RUNNING";
  app.roles[0].replicas[1].restarts = 2;
  derive_app_state(app);
  EXPECT_EQ(app.state, "RUNNING");
  EXPECT_EQ(app.num_restarts, 2);
  app.roles[0].replicas[1].state = "SUCCEEDED";
  derive_app_state(app);
  EXPECT_EQ(app.state, "SUCCEEDED");
  app.roles[0].replicas[1].state = "FAILED";
  app.roles[0].replicas[1].id = 1;
  app.roles[0].replicas[1].msg = "exited with code 2";
  derive_app_state(app);
  EXPECT_EQ(app.state, "FAILED");
  EXPECT_EQ(app.msg, "replica a/1 failed: exited with code 2");
}

TEST(DockerAppStatus, ParsesDockerTimes) {
  EXPECT_EQ(parse_docker_time("0001-01-01T00:00:00Z"), std::nullopt);  // Docker for "never"
  EXPECT_EQ(parse_docker_time("2024-05-01T12:00:00+02:00"), 1714557600000000000);
  EXPECT_EQ(parse_docker_time("garbage"), std::nullopt);
}

}  // namespace
}  // namespace sortie::docker
