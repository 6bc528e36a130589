// image_repo: a role image built on this machine (metadata sortie.local_image) runs on the
// cluster as IMAGE_REPO/<name>:<tag>. The dry run names only that reference in the manifests and
// shows the pushes; schedule pushes to the registry of packaging/engines/registry_up.sh through
// the Docker Engine before it creates the objects on the fake API server. Without image_repo the
// image is refused, naming the option.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "engine_required.hpp"
#include "fake_cluster.hpp"
#include "image_pushes.hpp"
#include "json.hpp"
#include "kubernetes_scheduler.hpp"
#include "push_engines.hpp"

namespace sortie::kubernetes {
namespace {

using testing::TempDir;

constexpr const char* kTestImage = "sortie-test/busybox:latest";
constexpr const char* kImageRepo = "127.0.0.1:5000/sortie-k8s-test";

std::string app_with_image(const std::string& image) {
  return R"({"name":"trainer","roles":[{"name":"trainer","image":")" + image +
         R"(","entrypoint":"python","num_replicas":2,"metadata":{"sortie.local_image":true}},)"
         R"({"name":"eval","image":")" +
         image + R"(","entrypoint":"python","metadata":{"sortie.local_image":true}}]})";
}

class KubernetesImagePushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Hermetic: no kubeconfig of this machine is read; a dry run needs no cluster.
    ::setenv("KUBECONFIG", (files_.path() + "/no-default-kubeconfig").c_str(), 1);
    ::unsetenv("KUBERNETES_SERVICE_HOST");
    ::setenv("DOCKER_CONFIG", files_.path().c_str(), 1);
  }
  void TearDown() override { ::unsetenv("DOCKER_CONFIG"); }

  std::string dryrun(const std::string& image, const std::string& cfg) {
    return scheduler_.dryrun(R"({"schema":"sortie.dryrun_input/1","app":)" + app_with_image(image) +
                             R"(,"cfg":)" + cfg + R"(,"app_id":"trainer-abc","session":"exp"})");
  }

  TempDir files_, state_;
  KubernetesScheduler scheduler_{
      R"({"schema":"sortie.scheduler_config/1","scheduler":"kubernetes","session":"exp","state_dir":")" +
      state_.path() + "\"}"};
};

TEST_F(KubernetesImagePushTest, RemoteReferencesFollowTheLocalOne) {
  EXPECT_EQ(remote_reference("sortie-xm/trainer:46f4f448", kImageRepo).str(),
            "127.0.0.1:5000/sortie-k8s-test/trainer:46f4f448");
  EXPECT_EQ(remote_reference("busybox", kImageRepo).str(),
            "127.0.0.1:5000/sortie-k8s-test/busybox:latest");
  EXPECT_EQ(remote_reference("localhost:5000/a/b:v2", "reg.example/team").str(),
            "reg.example/team/b:v2");
  EXPECT_EQ(remote_reference("sha256:0123abcd", "reg.example/team").str(),
            "reg.example/team/image:0123abcd");
  EXPECT_EQ(remote_reference("sortie-xm/web@sha256:0123abcd", "reg.example/team").str(),
            "reg.example/team/web:0123abcd");
  try {
    remote_reference("busybox", "reg.example/Team");
    ADD_FAILURE() << "an upper-case repository was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("image_repo"), std::string::npos) << e.what();
  }
}

TEST_F(KubernetesImagePushTest, DryRunManifestsNameTheRemoteImageNeverTheLocalTag) {
  const std::string local = "sortie-xm/trainer:46f4f44893a7fe79";
  const std::string remote = std::string(kImageRepo) + "/trainer:46f4f44893a7fe79";
  for (const char* gang : {"none", "volcano", "jobset"}) {
    rapidjson::Document dry;
    dry.Parse(dryrun(local, std::string(R"({"gang_scheduler":")") + gang + R"(","image_repo":")" +
                                kImageRepo + "\"}")
                  .c_str());
    ASSERT_FALSE(dry.HasParseError()) << gang;
    const std::string objects = plugins_common::to_json_text(dry["request"]["objects"]);
    const std::string document = plugins_common::to_json_text(dry["document"]);
    EXPECT_EQ(objects.find(local), std::string::npos) << gang << ": " << objects;
    EXPECT_EQ(document.find(local), std::string::npos) << gang << ": " << document;
    EXPECT_NE(objects.find("\"image\":\"" + remote + "\""), std::string::npos) << objects;
    EXPECT_EQ(objects.find("sortie.local_image"), std::string::npos) << objects;

    // The text shows the one push (both roles share the image), then manifests without it.
    const std::string text = dry["text"].GetString();
    const size_t then = text.find("# then:\n");
    ASSERT_NE(then, std::string::npos) << text;
    EXPECT_EQ(text.substr(then).find(local), std::string::npos) << text;
    EXPECT_EQ(text.rfind("# image_repo, through the Docker Engine at unix://", 0), 0u) << text;
    EXPECT_NE(text.find("POST /images/" + local +
                        "/tag?repo=127.0.0.1%3A5000%2Fsortie-k8s-test%2Ftrainer&tag="
                        "46f4f44893a7fe79\nPOST /images/127.0.0.1:5000/sortie-k8s-test/trainer/"
                        "push?tag=46f4f44893a7fe79\nX-Registry-Auth: <no credentials>\n"),
              std::string::npos)
        << text;
    const Json& pushes = dry["request"]["image_pushes"];
    ASSERT_EQ(pushes.Size(), 1u);
    EXPECT_EQ(plugins_common::to_json_text(pushes[0]["roles"]), R"(["trainer","eval"])");
  }
}

TEST_F(KubernetesImagePushTest, WithoutImageRepoALocalImageIsRefusedNamingIt) {
  try {
    dryrun("sortie-xm/trainer:1", "{}");
    ADD_FAILURE() << "a local image was accepted without image_repo";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    const std::string message = e.what();
    EXPECT_NE(message.find("role 'trainer': image 'sortie-xm/trainer:1' was built on this "
                           "machine and the cluster cannot pull it"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("the kubernetes run option image_repo"), std::string::npos) << message;
  }
}

TEST_F(KubernetesImagePushTest, SchedulePushesTheImageBeforeTheObjectsThatPullIt) {
  const std::string missing = ::sortie::testing::missing_push_engines(kTestImage);
  SORTIE_REQUIRE_ENGINE(missing.empty(), missing + ::sortie::testing::kPushEngineSetup);
  if (testing::test_pki().dir.empty()) {
    SORTIE_REQUIRE_ENGINE(false, "openssl is needed for the fake API server");
  }
  // A local tag no earlier run pushed, so the registry's tag list proves this push.
  const std::string tag =
      "t" + std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr));
  const std::string local = "sortie-k8s-local/trainer:" + tag;
  ASSERT_TRUE(
      ::sortie::testing::engine("POST", std::string("/images/") + kTestImage +
                                            "/tag?repo=sortie-k8s-local%2Ftrainer&tag=" + tag)
          .ok());
  const std::string remote = std::string(kImageRepo) + "/trainer:" + tag;

  testing::FakeApiServer server;
  const std::string dir = files_.path() + "/kc";
  std::filesystem::create_directories(dir);
  const std::string kubeconfig = testing::write_kubeconfig(
      dir, server.url(), "    certificate-authority: " + testing::test_pki().ca_cert + "\n",
      "    client-certificate: " + testing::test_pki().client_cert +
          "\n    client-key: " + testing::test_pki().client_key + "\n");
  const std::string dry =
      dryrun(local, R"({"kubeconfig":")" + kubeconfig + R"(","image_repo":")" + kImageRepo + "\"}");
  const std::string app_id = scheduler_.schedule(dry);
  ::sortie::testing::engine("DELETE", "/images/" + local);
  ::sortie::testing::engine("DELETE", "/images/" + remote);
  EXPECT_EQ(app_id, "team-a:trainer-abc");

  const http::Response tags = ::sortie::testing::registry("/v2/sortie-k8s-test/trainer/tags/list");
  ASSERT_TRUE(tags.ok()) << tags.body;
  EXPECT_NE(tags.body.find("\"" + tag + "\""), std::string::npos) << tag << " not in " << tags.body;

  const std::string requests = server.requests_json();
  EXPECT_NE(requests.find(remote), std::string::npos) << requests;
  EXPECT_EQ(requests.find(local), std::string::npos) << requests;
}

}  // namespace
}  // namespace sortie::kubernetes
