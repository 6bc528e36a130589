#include "app_status.hpp"

#include <gtest/gtest.h>

namespace sortie::docker {
namespace {

InspectedContainer from(const std::string& state_json) {
  rapidjson::Document inspect;
  const std::string text = R"({"Name":"/app-worker-0","RestartCount":1,)"
                           R"("Config":{"Hostname":"worker-0","StopTimeout":5},"State":)" +
                           state_json + "}";
  inspect.Parse(text.c_str());
  return read_inspect(inspect);
}

TEST(DockerAppStatus, MapsContainerStatesOntoReplicaStates) {
  const InspectedContainer running =
      from(R"({"Status":"running","Pid":42,"ExitCode":0,"StartedAt":"2024-05-01T10:00:00.25Z",)"
           R"("FinishedAt":"0001-01-01T00:00:00Z"})");
  EXPECT_EQ(running.replica.state, AppState::kRunning);
  EXPECT_EQ(running.replica.pid, 42);
  EXPECT_TRUE(running.container.live);
  EXPECT_EQ(running.replica.started_at, 1714557600250000000);
  EXPECT_FALSE(running.replica.finished_at.has_value());
  EXPECT_EQ(running.replica.hostname, "worker-0");
  EXPECT_EQ(running.container.name, "app-worker-0");
  EXPECT_EQ(running.container.stop_timeout_s, 5);

  EXPECT_EQ(from(R"({"Status":"created","ExitCode":0})").replica.state, AppState::kPending);
  const ReplicaStatus bad_command =
      from(
          R"({"Status":"created","ExitCode":127,"Error":"exec: \"x\": executable file not found"})")
          .replica;
  EXPECT_EQ(bad_command.state, AppState::kFailed);
  EXPECT_EQ(bad_command.exit_code, 127);
  EXPECT_NE(bad_command.msg.find("executable file not found"), std::string::npos);

  const ReplicaStatus exited = from(R"({"Status":"exited","ExitCode":3})").replica;
  EXPECT_EQ(exited.state, AppState::kFailed);
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_EQ(from(R"({"Status":"exited","ExitCode":0})").replica.state, AppState::kSucceeded);
  const ReplicaStatus oom = from(R"({"Status":"exited","ExitCode":137,"OOMKilled":true})").replica;
  EXPECT_EQ(oom.state, AppState::kFailed);
  EXPECT_NE(oom.msg.find("OOM"), std::string::npos);
  EXPECT_EQ(from(R"({"Status":"dead","ExitCode":0})").replica.state, AppState::kFailed);
  const InspectedContainer restarting = from(R"({"Status":"restarting","ExitCode":1})");
  EXPECT_EQ(restarting.replica.state, AppState::kPending);
  EXPECT_EQ(restarting.replica.restarts, 1);
  EXPECT_TRUE(restarting.container.live);
  const InspectedContainer paused = from(R"({"Status":"paused","Pid":7,"ExitCode":0})");
  EXPECT_EQ(paused.replica.state, AppState::kRunning);
  EXPECT_EQ(paused.replica.pid, 7);
  const ReplicaStatus removing = from(R"({"Status":"removing","ExitCode":0})").replica;
  EXPECT_EQ(removing.state, AppState::kUnknown);
  EXPECT_EQ(removing.msg, "container is removing");
}

// The container list (list()) and inspect (describe()) read one table, so they agree: a paused
// container is RUNNING in both (list once said PENDING).
TEST(DockerAppStatus, OneTableMapsEveryContainerStatus) {
  EXPECT_EQ(state_of("created"), AppState::kPending);
  EXPECT_EQ(state_of("restarting"), AppState::kPending);
  EXPECT_EQ(state_of("running"), AppState::kRunning);
  EXPECT_EQ(state_of("paused"), AppState::kRunning);
  EXPECT_EQ(state_of("exited"), AppState::kSucceeded);
  EXPECT_EQ(state_of("dead"), AppState::kFailed);
  EXPECT_EQ(state_of("removing"), AppState::kUnknown);
  EXPECT_EQ(state_of("hibernating"), AppState::kUnknown);
}

TEST(DockerAppStatus, DerivesTheAppState) {
  AppStatus app;
  app.roles.push_back({"a", {ReplicaStatus{}, ReplicaStatus{}}});
  app.roles[0].replicas[0].state = AppState::kSucceeded;
  app.roles[0].replicas[1].state = AppState::kRunning;
  app.roles[0].replicas[1].restarts = 2;
  derive_app_state(app);
  EXPECT_EQ(app.state, AppState::kRunning);
  EXPECT_EQ(app.num_restarts, 2);
  app.roles[0].replicas[1].state = AppState::kSucceeded;
  derive_app_state(app);
  EXPECT_EQ(app.state, AppState::kSucceeded);
  app.roles[0].replicas[1].state = AppState::kFailed;
  app.roles[0].replicas[1].id = 1;
  app.roles[0].replicas[1].msg = "exited with code 2";
  derive_app_state(app);
  EXPECT_EQ(app.state, AppState::kFailed);
  EXPECT_EQ(app.msg, "replica a/1 failed: exited with code 2");
}

TEST(DockerAppStatus, ParsesDockerTimes) {
  EXPECT_EQ(parse_docker_time("0001-01-01T00:00:00Z"), std::nullopt);  // Docker for "never"
  EXPECT_EQ(parse_docker_time("2024-05-01T12:00:00+02:00"), 1714557600000000000);
  EXPECT_EQ(parse_docker_time("garbage"), std::nullopt);
}

}  // namespace
}  // namespace sortie::docker
