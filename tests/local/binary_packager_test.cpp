// The binary packager through the local plugin's C ABI: an executable file is packaged as a
// process with the sha256 of its content; a missing, non-regular or non-executable path is
// refused naming the executable, the path and the fix.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

Result package(const std::string& request) {
  const TempDir state;
  return raw_abi::PackagerClient(local_plugin(), "binary", state.path()).package(request);
}

std::string request(const std::string& launch_dir, const std::string& path) {
  return R"({"schema":"sortie.package_request/1","launch_dir":")" + launch_dir +
         R"(","executables":[{"kind":"binary","name":"train","path":")" + path + R"("}]})";
}

void write_file(const std::string& path, const std::string& content, mode_t mode) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << content;
  ::chmod(path.c_str(), mode);
}

TEST(BinaryPackager, PackagesAnExecutableAsAProcessWithItsContentDigest) {
  TempDir dir;
  write_file(dir.path() + "/bin/train.sh", "abc", 0755);
  const Result result = package(request(dir.path(), "./bin/../bin/train.sh"));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document answer = parse(result.out);
  EXPECT_STREQ(answer["schema"].GetString(), "sortie.package_result/1");
  ASSERT_EQ(answer["packaged"].Size(), 1u);
  const rapidjson::Value& packaged = answer["packaged"][0];
  EXPECT_STREQ(packaged["kind"].GetString(), "process");
  EXPECT_EQ(packaged["entrypoint"].GetString(), dir.path() + "/bin/train.sh");
  EXPECT_TRUE(packaged["args"].IsArray() && packaged["args"].Empty());
  EXPECT_TRUE(packaged["env"].IsObject() && packaged["env"].ObjectEmpty());
  // sha256("abc")
  EXPECT_STREQ(packaged["digest"].GetString(),
               "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_FALSE(packaged["cached"].GetBool());

  write_file(dir.path() + "/bin/train.sh", "abd", 0755);
  const Result changed = package(request(dir.path(), "bin/train.sh"));
  ASSERT_EQ(changed.status, SORTIE_OK) << changed.err;
  EXPECT_STRNE(parse(changed.out)["packaged"][0]["digest"].GetString(),
               packaged["digest"].GetString());
}

TEST(BinaryPackager, KeepsTheOrderOfABatchAndAcceptsAbsolutePaths) {
  TempDir dir;
  TempDir other;
  write_file(dir.path() + "/a", "a", 0700);
  write_file(other.path() + "/b", "b", 0755);
  const Result result =
      package(R"({"schema":"sortie.package_request/1","launch_dir":")" + dir.path() +
              R"(","executables":[{"kind":"binary","name":"b","path":")" + other.path() +
              R"(/b"},{"kind":"binary","name":"a","path":"a"}]})");
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document answer = parse(result.out);
  ASSERT_EQ(answer["packaged"].Size(), 2u);
  EXPECT_EQ(answer["packaged"][0]["entrypoint"].GetString(), other.path() + "/b");
  EXPECT_EQ(answer["packaged"][1]["entrypoint"].GetString(), dir.path() + "/a");
}

TEST(BinaryPackager, RefusesAMissingPathNamingExecutableAndPath) {
  TempDir dir;
  const Result result = package(request(dir.path(), "missing.sh"));
  EXPECT_EQ(result.status, SORTIE_NOT_FOUND);
  EXPECT_NE(result.err.find("executable 'train'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(dir.path() + "/missing.sh"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("does not exist"), std::string::npos) << result.err;
}

TEST(BinaryPackager, RefusesANonExecutableFileWithTheChmodFix) {
  TempDir dir;
  write_file(dir.path() + "/train.sh", "echo", 0644);
  const Result result = package(request(dir.path(), "train.sh"));
  EXPECT_EQ(result.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_NE(result.err.find("executable 'train'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("chmod +x " + dir.path() + "/train.sh"), std::string::npos)
      << result.err;
}

TEST(BinaryPackager, RefusesADirectory) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/bin");
  const Result result = package(request(dir.path(), "bin"));
  EXPECT_EQ(result.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_NE(result.err.find("not a regular file"), std::string::npos) << result.err;
}

TEST(BinaryPackager, RefusesUnknownMembersAndOtherKinds) {
  TempDir dir;
  write_file(dir.path() + "/a", "a", 0755);
  Result result = package(R"({"schema":"sortie.package_request/1","launch_dir":")" + dir.path() +
                          R"(","executables":[{"kind":"binary","name":"a","path":"a",)"
                          R"("dependencies":[]}]})");
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("'dependencies'"), std::string::npos) << result.err;
  result = package(R"({"schema":"sortie.package_request/1","launch_dir":")" + dir.path() +
                   R"(","executables":[{"kind":"container","name":"a","image_path":"x"}]})");
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("kind 'container'"), std::string::npos) << result.err;
  result = package(R"({"schema":"sortie.package_request/1","launch_dir":"rel","executables":[]})");
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("launch_dir"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace sortie::local::testing
