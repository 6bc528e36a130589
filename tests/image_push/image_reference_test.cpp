#include "image_reference.hpp"

#include <gtest/gtest.h>

#include <sortie/plugin.hpp>

namespace sortie::image_push {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_push_target(text, "push_image_tag");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "accepted " << text;
  return "";
}

TEST(ImagePushImageReferenceTest, SplitsRegistryRepositoryAndTag) {
  const ImageReference local = parse_push_target("127.0.0.1:5000/team/trainer:v1", "t");
  EXPECT_EQ(local.registry, "127.0.0.1:5000");
  EXPECT_EQ(local.repository, "127.0.0.1:5000/team/trainer");
  EXPECT_EQ(local.tag, "v1");
  EXPECT_EQ(local.str(), "127.0.0.1:5000/team/trainer:v1");

  const ImageReference artifact = parse_push_target("us-docker.pkg.dev/my-p/repo/a.b__c-d", "t");
  EXPECT_EQ(artifact.registry, "us-docker.pkg.dev");
  EXPECT_EQ(artifact.tag, "latest");
  EXPECT_EQ(artifact.str(), "us-docker.pkg.dev/my-p/repo/a.b__c-d:latest");

  EXPECT_EQ(parse_push_target("localhost/t:x", "t").registry, "localhost");
  EXPECT_EQ(parse_push_target("team/trainer:v1", "t").registry, "docker.io");
  EXPECT_EQ(parse_push_target("trainer", "t").repository, "trainer");
  EXPECT_EQ(parse_push_target("Registry.Example:443/t:V_1.0-rc", "t").tag, "V_1.0-rc");
}

TEST(ImagePushImageReferenceTest, RefusesWhatARegistryWouldRefuse) {
  EXPECT_NE(refusal("").find("it is empty"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/t@sha256:0123").find("it names a digest"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/Trainer:1").find("the path component 'Trainer'"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p//t").find("the path component ''"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/t-:1").find("the path component 't-'"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/a...b").find("the path component 'a...b'"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/t:").find("the tag ''"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/t:-x").find("the tag '-x'"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/t:" + std::string(129, 'a')).find("1 to 128"), std::string::npos);
  EXPECT_NE(refusal("host:port/t:1").find("'host:port' is not a registry"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/" + std::string(260, 'a')).find("longer than 255"), std::string::npos);
  EXPECT_NE(refusal("gcr.io/p/t:1 ").find("expected [REGISTRY/]PATH[:TAG]"), std::string::npos);
}

TEST(ImagePushImageReferenceTest, LocalImageNamesFitAnEnginePath) {
  EXPECT_NO_THROW(check_local_image_name("sortie-test/busybox:latest", "image"));
  EXPECT_NO_THROW(check_local_image_name("busybox@sha256:abc", "image"));
  try {
    check_local_image_name("busybox?x=1", "role 'r' image");
    ADD_FAILURE() << "accepted a name with '?'";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("role 'r' image 'busybox?x=1' is not an image name", 0),
              0u);
  }
}

}  // namespace
}  // namespace sortie::image_push
