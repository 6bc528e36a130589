// local_docker against the real Docker Engine: distributed apps, exit codes, failures with the
// Engine's message, retries, cancel, list and options reaching the containers.
#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

#include "docker_test_support.hpp"

namespace sortie::docker::testing {
namespace {

using DockerScheduler = DockerAppFixture;

std::string replica_field(const rapidjson::Document& status, size_t role, size_t replica,
                          const char* key) {
  const rapidjson::Value& value = status["roles"][role]["replicas"][replica][key];
  if (value.IsString()) return value.GetString();
  if (value.IsInt64()) return std::to_string(value.GetInt64());
  return "null";
}

TEST_F(DockerScheduler, TwoRolesReachEachOtherByNameAndSucceed) {
  const std::string app_id = fresh_app_id("pingpong");
  // The server answers one connection per client; clients find it as ${rank0_host}.
  const std::string roles =
      "[" + shell_role("server", "for i in 1 2; do echo pong | nc -l -p 9000; done; echo served") +
      "," +
      shell_role("client",
                 "for i in $(seq 1 50); do a=$(nc ${rank0_host} 9000 </dev/null) && "
                 "[ -n \"$a\" ] && break; sleep 0.1; done; echo \"$SORTIE_REPLICA_ID got $a "
                 "from $SORTIE_RANK0_HOST\"; test \"$a\" = pong",
                 R"("num_replicas":2)") +
      "]";
  const std::string id = submit(dryrun_input(app_id, roles));
  EXPECT_EQ(id, app_id);
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED") << plugins_common::to_json_text(status);
  EXPECT_EQ(replica_field(status, 0, 0, "hostname"), "server-0");
  EXPECT_EQ(replica_field(status, 1, 1, "hostname"), "client-1");
  EXPECT_EQ(replica_field(status, 1, 1, "exit_code"), "0");
  EXPECT_EQ(status["roles"][1]["replicas"].Size(), 2u);
}

TEST_F(DockerScheduler, ExitCodePropagates) {
  const std::string app_id = fresh_app_id("exit");
  submit(dryrun_input(app_id, "[" + shell_role("worker", "echo bye; exit 3") + "]"));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica_field(status, 0, 0, "exit_code"), "3");
  EXPECT_NE(std::string(status["msg"].GetString()).find("worker/0"), std::string::npos)
      << status["msg"].GetString();
}

TEST_F(DockerScheduler, MissingImageEndsFailedWithTheEnginesMessage) {
  const std::string app_id = fresh_app_id("noimage");
  const std::string roles =
      R"([{"name":"a","image":"localhost:5000/sortie-test/no-such-image:1","entrypoint":"true"}])";
  submit(dryrun_input(app_id, roles));
  const rapidjson::Document status = parse(scheduler()->describe(app_id));
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  const std::string msg = status["msg"].GetString();
  EXPECT_NE(msg.find("no-such-image"), std::string::npos) << msg;
  // The registry's reason, which the Engine gives in the body of the refused pull.
  EXPECT_NE(msg.find("pulling it failed: manifest for"), std::string::npos) << msg;
  EXPECT_EQ(replica_field(status, 0, 0, "state"), "FAILED");
}

TEST_F(DockerScheduler, CommandNotFoundEndsFailedWithTheEnginesMessage) {
  const std::string app_id = fresh_app_id("nocmd");
  const std::string roles = std::string(R"([{"name":"a","image":")") + kTestImage +
                            R"(","entrypoint":"no-such-command"}])";
  submit(dryrun_input(app_id, roles));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_NE(std::string(status["msg"].GetString()).find("executable file not found"),
            std::string::npos)
      << status["msg"].GetString();
  EXPECT_EQ(replica_field(status, 0, 0, "exit_code"), "127");
}

TEST_F(DockerScheduler, AFailedReplicaStopsTheOthers) {
  const std::string app_id = fresh_app_id("failfast");
  submit(dryrun_input(
      app_id,
      "[" + shell_role("bad", "sleep 0.5; exit 1") + "," + shell_role("slow", "sleep 300") + "]",
      R"({"image_provider":"","cancel_grace_period":2})"));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica_field(status, 1, 0, "state"), "CANCELLED");
  EXPECT_EQ(inspect(app_id + "-slow-0")["State"]["Running"].GetBool(), false);
  // A later process still reads the same outcome.
  EXPECT_EQ(replica_field(parse(scheduler()->describe(app_id)), 1, 0, "state"), "CANCELLED");
}

TEST_F(DockerScheduler, ReplicaRetriesRestartTheContainer) {
  const std::string app_id = fresh_app_id("retry");
  submit(dryrun_input(app_id, "[" +
                                  shell_role("flaky", "echo attempt; exit 4",
                                             R"("max_retries":2,"retry_policy":"REPLICA")") +
                                  "]"));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_EQ(replica_field(status, 0, 0, "restarts"), "2");
  EXPECT_EQ(status["num_restarts"].GetInt64(), 2);
  EXPECT_EQ(replica_field(status, 0, 0, "exit_code"), "4");
}

// Issue 31: a replica's main process ends while a process it started runs on (a torchrun agent
// killed, its workers left). The container's main process is the init of its PID namespace, so
// the kernel kills every other process in it before the container counts as exited, and Docker
// restarts it (the retry) only after: nothing of the first attempt runs beside the second.
TEST_F(DockerScheduler, AReplicasLeftoverProcessesEndWithItsMainProcess) {
  const std::string app_id = fresh_app_id("leftover");
  submit(dryrun_input(
      app_id, "[" +
                  shell_role("main",
                             "if [ -e /attempted ]; then echo retry; exit 0; fi; touch /attempted; "
                             "(trap '' TERM; exec sleep 300) & "
                             "until [ -e /go ]; do sleep 0.05; done; exit 3",
                             R"("max_retries":1,"retry_policy":"REPLICA")") +
                  "]"));
  const std::string container = app_id + "-main-0";
  Engine engine(docker_socket_from_environment());
  std::string leftover;  // its pid on the host
  for (int round = 0; round < 300 && leftover.empty(); ++round) {
    const rapidjson::Document top =
        parse(engine.call("GET", "/containers/" + container + "/top?ps_args=-eo%20pid,args").body);
    if (top.IsObject() && top.HasMember("Processes")) {
      for (const auto& process : top["Processes"].GetArray()) {
        if (std::string(process[1].GetString()) == "sleep 300") leftover = process[0].GetString();
      }
    }
    if (leftover.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(leftover.empty()) << "the first attempt's sleep never showed in the container";
  // Through a file, not a signal: Docker never restarts a container it was asked to kill.
  const rapidjson::Document exec = parse(
      engine.call("POST", "/containers/" + container + "/exec", R"({"Cmd":["touch","/go"]})").body);
  ASSERT_TRUE(exec.IsObject() && exec.HasMember("Id"));
  EXPECT_EQ(engine
                .call("POST", std::string("/exec/") + exec["Id"].GetString() + "/start",
                      R"({"Detach":true})")
                .status,
            200);
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED") << plugins_common::to_json_text(status);
  EXPECT_EQ(replica_field(status, 0, 0, "restarts"), "1");
  EXPECT_TRUE(::kill(std::stoi(leftover), 0) != 0 && errno == ESRCH)
      << "pid " << leftover << ", left by the first attempt, still runs";
}

TEST_F(DockerScheduler, CancelRemovesContainersAndNetwork) {
  const std::string app_id = fresh_app_id("cancel");
  submit(dryrun_input(app_id, "[" + shell_role("sleeper", "sleep 300", R"("num_replicas":2)") + "]",
                      R"({"image_provider":"","cancel_grace_period":5})"));
  std::string state = "PENDING";
  while (state == "PENDING") {
    state = parse(scheduler()->wait(app_id, state, 10000))["state"].GetString();
  }
  EXPECT_EQ(state, "RUNNING");
  EXPECT_EQ(container_count(app_id), 2u);
  scheduler()->cancel(app_id);  // a fresh instance: no memory of the submission
  const rapidjson::Document status = parse(scheduler()->describe(app_id));
  EXPECT_STREQ(status["state"].GetString(), "CANCELLED");
  EXPECT_EQ(replica_field(status, 0, 1, "state"), "CANCELLED");
  EXPECT_EQ(container_count(app_id), 0u);
  Engine engine(docker_socket_from_environment());
  EXPECT_EQ(engine.call("GET", "/networks/sortie-" + app_id).status, 404);
  scheduler()->cancel(app_id);  // cancelling again changes nothing
  EXPECT_STREQ(parse(scheduler()->describe(app_id))["state"].GetString(), "CANCELLED");
}

TEST_F(DockerScheduler, UnknownAppIsNotFound) {
  try {
    scheduler()->describe("no-such-app-" + std::to_string(::getpid()));
    FAIL() << "describe succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kNotFound);
  }
  EXPECT_THROW(scheduler()->cancel("no-such-app"), Error);
}

TEST_F(DockerScheduler, ListShowsTheSessionsApps) {
  const std::string app_id = fresh_app_id("listed");
  submit(dryrun_input(app_id, "[" + shell_role("a", "true") + "]"));
  wait_terminal(app_id);
  const rapidjson::Document list =
      parse(scheduler()->list(R"({"schema":"sortie.list_filter/1","session":"test"})"));
  bool found = false;
  for (const auto& app : list["apps"].GetArray()) {
    if (app["app_id"].GetString() != app_id) continue;
    found = true;
    EXPECT_STREQ(app["state"].GetString(), "SUCCEEDED");
    EXPECT_STREQ(app["name"].GetString(), "app");
  }
  EXPECT_TRUE(found) << plugins_common::to_json_text(list);
}

TEST_F(DockerScheduler, OptionsAndSpecFieldsReachTheContainer) {
  TempDir data;
  std::ofstream(data.path() + "/in.txt") << "from-host";
  const std::string volume = "sortie-test-volume-" + std::to_string(::getpid());
  ::setenv("SORTIE_TEST_COPIED", "copied-value", 1);
  ::setenv("SORTIE_TEST_OTHER", "not-copied", 1);
  const std::string app_id = fresh_app_id("options");
  const std::string script =
      "echo env=$FROM_OPTION,$FROM_ROLE,$SORTIE_TEST_COPIED,${SORTIE_TEST_OTHER:-unset}; "
      "echo bind=$(cat /data/in.txt); echo written >/data/out.txt; "
      "echo vol > /vol/f && echo volume=$(cat /vol/f); "
      "test -c /dev/sortie-null && echo device=ok; "
      "echo mem=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes); "
      "echo cpu=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us); echo args=\"$@\"";
  const std::string role =
      std::string(R"({"name":"opts","image":")") + kTestImage +
      R"(","entrypoint":"sh","args":["-c",)" + plugins_common::quote(script) +
      R"(,"sh","${replica_id}-of-${num_replicas}"],"env":{"FROM_ROLE":"role-${role_name}"},)"
      R"("resource":{"cpu":0.5,"memMB":64,"gpu":-1},"port_map":{"http":8080},)"
      R"("mounts":[{"type":"bind","src":)" +
      plugins_common::quote(data.path()) + R"(,"dst":"/data"},{"type":"volume","src":")" + volume +
      R"(","dst":"/vol"},{"type":"device","src":"/dev/null","dst":"/dev/sortie-null"}]})";
  submit(dryrun_input(app_id, "[" + role + "]",
                      R"({"image_provider":"","env":{"FROM_OPTION":"opt"},)"
                      R"("copy_env":["SORTIE_TEST_COP*"],"privileged":false})"));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED") << plugins_common::to_json_text(status);

  std::vector<std::string> lines;
  auto stream = scheduler()->log_open(app_id, R"({"schema":"sortie.log_request/1"})");
  struct Collect {
    static void line(void* ctx, const sortie_log_line* line) {
      static_cast<std::vector<std::string>*>(ctx)->emplace_back(line->data.ptr, line->data.len);
    }
  };
  sortie_log_sink sink{&lines, &Collect::line};
  while (stream->next(5000, LogSink(&sink))) {
  }
  std::string output;
  for (const std::string& line : lines) output += line;
  EXPECT_NE(output.find("env=opt,role-opts,copied-value,unset\n"), std::string::npos) << output;
  EXPECT_NE(output.find("bind=from-host\n"), std::string::npos) << output;
  EXPECT_NE(output.find("volume=vol\n"), std::string::npos) << output;
  EXPECT_NE(output.find("device=ok\n"), std::string::npos) << output;
  EXPECT_NE(output.find("mem=67108864\n"), std::string::npos) << output;
  EXPECT_NE(output.find("cpu=50000\n"), std::string::npos) << output;
  EXPECT_NE(output.find("args=0-of-1\n"), std::string::npos) << output;
  std::ifstream written(data.path() + "/out.txt");
  std::string back;
  written >> back;
  EXPECT_EQ(back, "written");

  const rapidjson::Document container = inspect(app_id + "-opts-0");
  const rapidjson::Value& bindings = container["HostConfig"]["PortBindings"]["8080/tcp"];
  ASSERT_TRUE(bindings.IsArray());
  EXPECT_STREQ(bindings[0]["HostIp"].GetString(), "127.0.0.1");
  EXPECT_STREQ(container["Config"]["Labels"]["sortie.role"].GetString(), "opts");
  EXPECT_STREQ(container["Config"]["Labels"]["sortie.session"].GetString(), "test");
  Engine engine(docker_socket_from_environment());
  engine.call("DELETE", "/containers/" + app_id + "-opts-0?force=1");
  engine.call("DELETE", "/volumes/" + volume);
}

TEST_F(DockerScheduler, PrivilegedAndGpusReachTheEngine) {
  // No GPU and no privileged runtime here: the Engine refuses both, and says so in status.
  const std::string app_id = fresh_app_id("gpu");
  submit(dryrun_input(app_id, "[" + shell_role("g", "true", R"("resource":{"gpu":1})") + "]",
                      R"({"image_provider":"","privileged":true})"));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  const rapidjson::Document container = inspect(app_id + "-g-0");
  EXPECT_TRUE(container["HostConfig"]["Privileged"].GetBool());
  EXPECT_EQ(container["HostConfig"]["DeviceRequests"][0]["Count"].GetInt64(), 1);
  EXPECT_STREQ(container["HostConfig"]["DeviceRequests"][0]["Driver"].GetString(), "nvidia");
  EXPECT_NE(std::string(status["msg"].GetString()).find("nvidia"), std::string::npos)
      << status["msg"].GetString();
}

TEST_F(DockerScheduler, ScheduleTwiceIsRefused) {
  const std::string app_id = fresh_app_id("twice");
  const std::string dry =
      scheduler()->dryrun(dryrun_input(app_id, "[" + shell_role("a", "true") + "]"));
  apps_.push_back(scheduler()->schedule(dry));
  try {
    scheduler()->schedule(dry);
    FAIL() << "second schedule succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kAlreadyExists);
  }
}

TEST(DockerEngineAddress, DockerHostIsHonoured) {
  ::setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock", 1);
  EXPECT_EQ(docker_socket_from_environment(), "/nonexistent/docker.sock");
  TempDir state;
  sortie::docker::DockerScheduler scheduler(scheduler_config(state.path()));
  try {
    scheduler.describe("x");
    FAIL() << "describe reached an Engine at a socket that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kUnavailable);
    EXPECT_NE(std::string(error.what()).find("/nonexistent/docker.sock"), std::string::npos)
        << error.what();
  }
  ::setenv("DOCKER_HOST", "tcp://127.0.0.1:2375", 1);
  EXPECT_THROW(docker_socket_from_environment(), Error);
  ::unsetenv("DOCKER_HOST");
  EXPECT_EQ(docker_socket_from_environment(), "/var/run/docker.sock");
}

}  // namespace
}  // namespace sortie::docker::testing
