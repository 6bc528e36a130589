#include <gtest/gtest.h>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

Result fetch(std::string_view provider, const std::string& role) {
  const TempDir state;
  return raw_abi::ImageProviderClient(local_plugin(), provider, state.path()).fetch(role);
}

std::string role_with_image(const std::string& image) {
  return R"({"schema":"sortie.role/1","name":"trainer","entrypoint":"x","image":")" + image +
         R"("})";
}

TEST(ImageProviders, CwdIgnoresTheImageAndUsesTheWorkingDirectory) {
  const Result result = fetch("cwd", role_with_image("ignored:latest"));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document image = parse(result.out);
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_STREQ(image["schema"].GetString(), "sortie.image/1");
  EXPECT_EQ(image["img_root"].GetString(), cwd);
  EXPECT_EQ(image["cwd"].GetString(), cwd);
}

TEST(ImageProviders, DirUsesTheImageDirectory) {
  TempDir dir;
  const Result result = fetch("dir", role_with_image(dir.path() + "/"));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document image = parse(result.out);
  EXPECT_EQ(image["img_root"].GetString(), dir.path());
  EXPECT_EQ(image["cwd"].GetString(), dir.path());
}

TEST(ImageProviders, DirRefusesAMissingDirectoryNamingRoleAndPath) {
  const Result result = fetch("dir", role_with_image("/no/such/sortie/dir"));
  EXPECT_EQ(result.status, SORTIE_NOT_FOUND);
  EXPECT_NE(result.err.find("role 'trainer'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'/no/such/sortie/dir'"), std::string::npos) << result.err;
}

TEST(ImageProviders, DirRefusesARelativePath) {
  const Result result = fetch("dir", role_with_image("relative/dir"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("absolute"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace sortie::local::testing
