// push_image_tag against the real Docker Engine (packaging/engines/docker_up.sh) and a local
// registry on 127.0.0.1:5000 (packaging/engines/registry_up.sh): the vertex scheduler tags the
// role's image, pushes it over the Engine's unix socket, then creates the CustomJob on the fake
// Vertex AI with the pushed tag as its image.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <ctime>
#include <sortie/plugin.hpp>

#include "push_engines.hpp"
#include "vertex_test_support.hpp"

namespace sortie::vertex::testing {
namespace {

constexpr const char* kLocalImage = "sortie-test/busybox:latest";
constexpr const char* kRegistry = ::sortie::testing::kPushRegistry;
constexpr const char* kRepository = "sortie-vertex-test/trainer";
constexpr const char* kCreatePath = "/v1/projects/p/locations/us-central1/customJobs";

using ::sortie::testing::engine;
using ::sortie::testing::registry;

class VertexImagePushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SORTIE_REQUIRE_ENGINE(have_program("python3"), "python3 is needed for the fake Vertex AI");
    const std::string missing = ::sortie::testing::missing_push_engines(kLocalImage);
    SORTIE_REQUIRE_ENGINE(missing.empty(), missing + ::sortie::testing::kPushEngineSetup);
    ASSERT_TRUE(fake_.running());
    ::setenv("GOOGLE_OAUTH_ACCESS_TOKEN", FakeVertex::token().c_str(), 1);
    ::setenv("DOCKER_CONFIG", docker_config_.path().c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("GOOGLE_OAUTH_ACCESS_TOKEN");
    ::unsetenv("DOCKER_CONFIG");
    for (const std::string& tag : local_tags_) engine("DELETE", "/images/" + tag);
  }

  // A tag no earlier run pushed, so the registry's tag list proves this push.
  std::string fresh_tag() {
    return "t" + std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr)) + "-" +
           std::to_string(++tags_made_);
  }

  // Dry-runs and schedules one role running `image`, pushed to push_image_tag `target`.
  Result submit(const std::string& image, const std::string& target) {
    local_tags_.push_back(target);
    const std::string roles =
        R"([{"name":"trainer","image":")" + image + R"(","entrypoint":"/bin/true"}])";
    const Result dry = scheduler_.dryrun(dryrun_input("push-app", roles,
                                                      R"({"project":"p","retries":0,"endpoint":")" +
                                                          fake_.url() + R"(","push_image_tag":")" +
                                                          target + R"(","push_timeout":60})"));
    EXPECT_EQ(dry.status, SORTIE_OK) << dry.err;
    return scheduler_.schedule(dry.out);
  }

  size_t creates() const {
    size_t count = 0;
    const rapidjson::Document seen = fake_.requests();
    for (const rapidjson::Value& request : seen["requests"].GetArray()) {
      count += std::string(request["path"].GetString()) == kCreatePath;
    }
    return count;
  }

  FakeVertex fake_;
  TempDir state_;
  TempDir docker_config_;
  SchedulerClient scheduler_{"vertex", state_.path()};
  std::vector<std::string> local_tags_;
  int tags_made_ = 0;
};

TEST_F(VertexImagePushTest, PushesTheImageAndRunsThePushedTag) {
  const std::string tag = fresh_tag();
  const std::string target = std::string(kRegistry) + "/" + kRepository + ":" + tag;
  const Result scheduled = submit(kLocalImage, target);
  ASSERT_EQ(scheduled.status, SORTIE_OK) << scheduled.err;
  EXPECT_EQ(scheduled.out, "p:us-central1:1000");

  const http::Response tags = registry(std::string("/v2/") + kRepository + "/tags/list");
  ASSERT_TRUE(tags.ok()) << tags.body;
  bool pushed = false;
  for (const rapidjson::Value& listed : parse(tags.body)["tags"].GetArray()) {
    pushed = pushed || tag == listed.GetString();
  }
  EXPECT_TRUE(pushed) << tag << " not in " << tags.body;

  const rapidjson::Document seen = fake_.requests();
  ASSERT_EQ(seen["requests"].Size(), 1u);
  const rapidjson::Document body = parse(seen["requests"][0]["body"].GetString());
  EXPECT_EQ(
      std::string(body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"].GetString()),
      target);
}

TEST_F(VertexImagePushTest, ImageMissingFromTheEngineIsRefusedBeforeTheJob) {
  const Result scheduled =
      submit("sortie-test/not-built:nowhere", std::string(kRegistry) + "/" + kRepository + ":x");
  EXPECT_EQ(scheduled.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_NE(scheduled.err.find("role 'trainer': pushing image 'sortie-test/not-built:nowhere' "
                               "to '127.0.0.1:5000/sortie-vertex-test/trainer:x': No such image"),
            std::string::npos)
      << scheduled.err;
  EXPECT_NE(scheduled.err.find("build or pull the image there first"), std::string::npos);
  EXPECT_EQ(creates(), 0u);
}

TEST_F(VertexImagePushTest, UnreachableEngineNamesDockerHost) {
  const std::string socket = state_.path() + "/no-engine.sock";
  const char* original = std::getenv("DOCKER_HOST");
  const std::string saved = original == nullptr ? "" : original;
  ::setenv("DOCKER_HOST", ("unix://" + socket).c_str(), 1);
  const Result scheduled = submit(kLocalImage, std::string(kRegistry) + "/" + kRepository + ":x");
  if (original == nullptr) {
    ::unsetenv("DOCKER_HOST");
  } else {
    ::setenv("DOCKER_HOST", saved.c_str(), 1);
  }
  EXPECT_EQ(scheduled.status, SORTIE_UNAVAILABLE);
  EXPECT_NE(scheduled.err.find("push_image_tag needs the Docker Engine"), std::string::npos)
      << scheduled.err;
  EXPECT_NE(scheduled.err.find("the Docker Engine at unix://" + socket + " (DOCKER_HOST=unix://" +
                               socket + ")"),
            std::string::npos)
      << scheduled.err;
  EXPECT_NE(scheduled.err.find("point DOCKER_HOST at its socket"), std::string::npos);
  EXPECT_EQ(creates(), 0u);
}

TEST_F(VertexImagePushTest, RegistryRefusalsCarryTheEnginesText) {
  FakeServer refusing("refusing_registry.py", {});
  ASSERT_TRUE(refusing.running());
  const std::string host = "127.0.0.1:" + std::to_string(refusing.port());
  const std::string target = host + "/" + kRepository + ":x";

  // No credentials: the registry's Basic challenge goes unanswered.
  const Result anonymous = submit(kLocalImage, target);
  EXPECT_EQ(anonymous.status, SORTIE_UNAUTHENTICATED);
  EXPECT_NE(anonymous.err.find("role 'trainer': pushing image 'sortie-test/busybox:latest' to '" +
                               target +
                               "' failed: no basic auth credentials (registry credentials: no "
                               "credentials)"),
            std::string::npos)
      << anonymous.err;

  // `docker login` credentials reach the registry, which then denies the upload.
  write_text(docker_config_.path() + "/config.json",
             R"({"auths":{")" + host + R"(":{"auth":"dTpw"}}})");  // u:p
  const Result denied = submit(kLocalImage, target);
  EXPECT_EQ(denied.status, SORTIE_PERMISSION_DENIED);
  EXPECT_NE(denied.err.find("failed: denied: pushes to this test registry are refused "
                            "(registry credentials: the entry for " +
                            host + " in " + docker_config_.path() + "/config.json)"),
            std::string::npos)
      << denied.err;
  bool saw_credentials = false;
  const rapidjson::Document seen = refusing.requests();
  for (const rapidjson::Value& request : seen["requests"].GetArray()) {
    saw_credentials =
        saw_credentials || std::string(request["authorization"].GetString()) == "Basic dTpw";
  }
  EXPECT_TRUE(saw_credentials) << "the Engine never presented u:p";
  EXPECT_EQ(creates(), 0u);
}

}  // namespace
}  // namespace sortie::vertex::testing
