// Helpers of the Docker engine tests: the engine requirement (a failure when CI=true, a skip
// otherwise), a scheduler made fresh for every call the way another process would see the app,
// a capture of the plugin's host log, and cleanup of whatever an app left in the Engine.
#ifndef SORTIE_TESTS_DOCKER_TEST_SUPPORT_HPP
#define SORTIE_TESTS_DOCKER_TEST_SUPPORT_HPP

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <sortie/plugin.hpp>
#include <string>
#include <vector>

#include "docker_scheduler.hpp"
#include "engine.hpp"
#include "image_transfer.hpp"
#include "json_fields.hpp"
#include "temp_dir.hpp"

namespace sortie::docker::testing {

inline constexpr const char* kTestImage = "sortie-test/busybox:latest";

// Why the engine tests cannot run, or "" when they can.
inline std::string engine_missing() {
  try {
    Engine engine(docker_socket_from_environment());
    engine.api_version();
    if (!image_exists(engine, kTestImage)) {
      return std::string("the test image ") + kTestImage + " is missing";
    }
    return "";
  } catch (const Error& error) {
    return error.what();
  }
}

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// Fails under CI=true, skips elsewhere, when no Engine (or test image) is available.
#define SORTIE_REQUIRE_DOCKER()                                                                   \
  do {                                                                                            \
    const std::string missing = ::sortie::docker::testing::engine_missing();                      \
    if (!missing.empty()) {                                                                       \
      if (::sortie::docker::testing::in_ci()) {                                                   \
        FAIL() << "CI=true and the Docker Engine is not usable: " << missing                      \
               << " (run packaging/engines/docker_up.sh)";                                        \
      }                                                                                           \
      GTEST_SKIP() << "no Docker Engine: " << missing << " (run packaging/engines/docker_up.sh)"; \
    }                                                                                             \
  } while (0)

// What the plugin sent to sortie::Host::log.
class HostLog {
 public:
  static HostLog& get() {
    static HostLog log;
    return log;
  }
  std::vector<std::string> lines() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }
  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    lines_.clear();
  }

 private:
  HostLog() {
    api_.struct_size = sizeof(api_);
    api_.ctx = this;
    api_.log = [](void* ctx, int32_t, const char* msg, size_t len) {
      auto* self = static_cast<HostLog*>(ctx);
      const std::lock_guard<std::mutex> lock(self->mutex_);
      self->lines_.emplace_back(msg, len);
    };
    Host::set_api(&api_);
  }
  sortie_host_api api_{};
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

using ::sortie::testing::TempDir;

// A fresh app id per call, unique across concurrent test processes.
inline std::string fresh_app_id(const std::string& name) {
  static std::atomic<int> counter{0};
  static const unsigned salt = std::random_device{}();
  return name + "-" + std::to_string(::getpid()) + "-" + std::to_string(salt % 100000) + "-" +
         std::to_string(counter++);
}

inline std::string scheduler_config(const std::string& state_dir) {
  return R"({"schema":"sortie.scheduler_config/1","scheduler":"local_docker","session":"test",)"
         R"("state_dir":)" +
         plugins_common::quote(state_dir) + "}";
}

// A sortie.dryrun_input/1 for `roles` (a JSON array text) with run options `cfg` (object text).
inline std::string dryrun_input(const std::string& app_id, const std::string& roles,
                                const std::string& cfg = R"({"image_provider":""})",
                                const std::string& images = "") {
  return R"({"schema":"sortie.dryrun_input/1","app":{"schema":"sortie.appdef/1","name":"app",)"
         R"("roles":)" +
         roles + R"(},"cfg":)" + cfg + R"(,"app_id":")" + app_id + R"(","session":"test")" +
         (images.empty() ? "" : R"(,"images":)" + images) + "}";
}

// A role of the test image running `sh -c script`.
inline std::string shell_role(const std::string& name, const std::string& script,
                              const std::string& extra = "") {
  return R"({"name":")" + name + R"(","image":")" + kTestImage +
         R"(","entrypoint":"sh","args":["-c",)" + plugins_common::quote(script) + "]" +
         (extra.empty() ? "" : "," + extra) + "}";
}

inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

// Each test gets its own state dir; every call uses a new scheduler, as another process would.
class DockerAppFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    HostLog::get();
    SORTIE_REQUIRE_DOCKER();
  }
  void TearDown() override {
    // Whatever a test left behind (a failure midway) goes, so runs never accumulate containers.
    Engine engine(docker_socket_from_environment());
    for (const std::string& app_id : apps_) {
      const std::string filters = http::url_encode(
          R"({"label":[)" + plugins_common::quote("sortie.app_id=" + app_id) + "]}");
      const http::Response list = engine.call("GET", "/containers/json?all=1&filters=" + filters);
      rapidjson::Document document;
      document.Parse(list.body.c_str());
      if (document.IsArray()) {
        for (const auto& entry : document.GetArray()) {
          engine.call("DELETE",
                      std::string("/containers/") + entry["Id"].GetString() + "?force=1&v=1");
        }
      }
      engine.call("DELETE", "/networks/sortie-" + app_id);
    }
  }
  std::unique_ptr<DockerScheduler> scheduler() const {
    return std::make_unique<DockerScheduler>(scheduler_config(state_.path()));
  }
  std::string submit(const std::string& input) {
    const std::string dry = scheduler()->dryrun(input);
    const std::string app_id = scheduler()->schedule(dry);
    apps_.push_back(app_id);
    return app_id;
  }
  // Waits through wait() until the app is terminal.
  rapidjson::Document wait_terminal(const std::string& app_id) const {
    std::string state;
    for (int round = 0; round < 600; ++round) {
      rapidjson::Document status = parse(scheduler()->wait(app_id, state, 30000));
      state = status["state"].GetString();
      if (state == "SUCCEEDED" || state == "FAILED" || state == "CANCELLED") return status;
    }
    ADD_FAILURE() << "app " << app_id << " never ended";
    return parse(scheduler()->describe(app_id));
  }
  // The containers the Engine has for an app (all states).
  size_t container_count(const std::string& app_id) const {
    Engine engine(docker_socket_from_environment());
    const std::string filters =
        http::url_encode(R"({"label":[)" + plugins_common::quote("sortie.app_id=" + app_id) + "]}");
    rapidjson::Document document;
    document.Parse(engine.call("GET", "/containers/json?all=1&filters=" + filters).body.c_str());
    return document.IsArray() ? document.Size() : 0;
  }
  static rapidjson::Document inspect(const std::string& container) {
    Engine engine(docker_socket_from_environment());
    return parse(engine.call("GET", "/containers/" + container + "/json").body);
  }

  TempDir state_;
  std::vector<std::string> apps_;
};

}  // namespace sortie::docker::testing

#endif  // SORTIE_TESTS_DOCKER_TEST_SUPPORT_HPP
