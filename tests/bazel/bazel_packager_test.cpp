// The bazel_binary and bazel_container packagers against real Bazel building a copy of
// examples/bazel: one build per request, the binary runs, digests and `cached`, errors that name
// the label and the fix, and the image tarball loads and runs in Docker.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bazel_test_support.hpp"

namespace sortie::bazel::testing {
namespace {

constexpr const char* kImageTag = "sortie-example/bazel-hello:latest";

std::string greeting(const std::string& name) {
  return "hello from bazel, HELLO_NAME=" + name + "\narg 1: one\narg 2: two words\n";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The host-log lines announcing a `bazel build` (not Bazel's own output, which is "bazel: ...").
std::vector<std::string> build_commands() {
  std::vector<std::string> commands;
  for (const LogEntry& entry : HostLog::get().entries()) {
    if (!entry.message.starts_with("bazel: ") && contains(entry.message, " build ")) {
      commands.push_back(entry.message);
    }
  }
  return commands;
}

bool logged_at_info(const std::string& part) {
  for (const LogEntry& entry : HostLog::get().entries()) {
    if (entry.level == SORTIE_LOG_INFO && contains(entry.message, part)) return true;
  }
  return false;
}

using BazelPackager = BazelWorkspaceFixture;

TEST_F(BazelPackager, BuildsBinaryAndImageInOneBazelBuild) {
  SORTIE_REQUIRE_BAZEL();
  const PackagerClient packager("bazel_binary", state_dir());
  const Result result = packager.package(package_request(
      workspace() + "/hello", {bazel_executable("bazel_binary", "hello", "//hello:hello"),
                               bazel_executable("bazel_container", "image", "//hello:image.tar")}));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;

  const std::vector<std::string> builds = build_commands();
  ASSERT_EQ(builds.size(), 1u);
  EXPECT_TRUE(contains(builds[0], "-- //hello:hello //hello:image.tar")) << builds[0];
  EXPECT_TRUE(logged_at_info("bazel: INFO: Build completed successfully"));

  const rapidjson::Document document = parse(result.out);
  EXPECT_STREQ(document["schema"].GetString(), "sortie.package_result/1");
  const rapidjson::Value& packaged = document["packaged"];
  ASSERT_EQ(packaged.Size(), 2u);

  const rapidjson::Value& binary = packaged[0];
  EXPECT_STREQ(binary["kind"].GetString(), "process");
  const std::string entrypoint = binary["entrypoint"].GetString();
  const std::string execution_root = trimmed(bazel("info execution_root").out);
  EXPECT_TRUE(entrypoint.starts_with(execution_root + "/bazel-out/")) << entrypoint;
  EXPECT_TRUE(std::filesystem::equivalent(entrypoint, workspace() + "/bazel-bin/hello/hello"));
  const std::string sha256 = run_shell("sha256sum " + shell_quote(entrypoint)).out.substr(0, 64);
  EXPECT_EQ(binary["digest"].GetString(), "sha256:" + sha256);
  EXPECT_FALSE(binary["cached"].GetBool());
  EXPECT_EQ(binary["args"].Size(), 0u);
  EXPECT_EQ(run_shell("HELLO_NAME=packaged " + shell_quote(entrypoint) + " one 'two words'").out,
            greeting("packaged"));

  const rapidjson::Value& image = packaged[1];
  EXPECT_STREQ(image["kind"].GetString(), "executable");
  EXPECT_STREQ(image["executable"]["kind"].GetString(), "container");
  const std::string image_path = image["executable"]["image_path"].GetString();
  EXPECT_TRUE(std::filesystem::equivalent(image_path, workspace() + "/bazel-bin/hello/image.tar"));
  const std::string listing = run_shell("tar -tf " + shell_quote(image_path)).out;
  EXPECT_TRUE(listing.starts_with("manifest.json\n")) << listing;
  EXPECT_TRUE(contains(listing, ".json\nlayer.tar\n")) << listing;
}

TEST_F(BazelPackager, SecondPackagingIsCachedWithTheSameDigest) {
  SORTIE_REQUIRE_BAZEL();
  const std::string request =
      package_request(workspace(), {bazel_executable("bazel_binary", "hello", "//hello:hello")});
  const Result first = PackagerClient("bazel_binary", state_dir()).package(request);
  ASSERT_EQ(first.status, SORTIE_OK) << first.err;
  const rapidjson::Document first_result = parse(first.out);
  const std::string digest = first_result["packaged"][0]["digest"].GetString();
  EXPECT_FALSE(first_result["packaged"][0]["cached"].GetBool());

  const Result second = PackagerClient("bazel_binary", state_dir()).package(request);
  ASSERT_EQ(second.status, SORTIE_OK) << second.err;
  const rapidjson::Document second_result = parse(second.out);
  EXPECT_EQ(second_result["packaged"][0]["digest"].GetString(), digest);
  EXPECT_TRUE(second_result["packaged"][0]["cached"].GetBool());

  // Built again from nothing, the binary has the same bytes, so it still counts as cached.
  ASSERT_EQ(bazel("clean").exit_code, 0);
  const Result rebuilt = PackagerClient("bazel_binary", state_dir()).package(request);
  ASSERT_EQ(rebuilt.status, SORTIE_OK) << rebuilt.err;
  const rapidjson::Document rebuilt_result = parse(rebuilt.out);
  EXPECT_EQ(rebuilt_result["packaged"][0]["digest"].GetString(), digest);
  EXPECT_TRUE(rebuilt_result["packaged"][0]["cached"].GetBool());

  // The record lives in the state_dir: another one has never seen this binary.
  const std::string other_state = state_dir() + "/other";
  const Result elsewhere = PackagerClient("bazel_binary", other_state).package(request);
  ASSERT_EQ(elsewhere.status, SORTIE_OK) << elsewhere.err;
  EXPECT_FALSE(parse(elsewhere.out)["packaged"][0]["cached"].GetBool());
}

TEST_F(BazelPackager, BuildsOncePerDistinctBazelArgs) {
  SORTIE_REQUIRE_BAZEL();
  // cquery reports an alias under its actual target's label; the packager still finds it.
  std::ofstream(workspace() + "/hello/BUILD", std::ios::app)
      << "\nalias(name = \"hello_alias\", actual = \":hello\")\n";
  const Result result =
      PackagerClient("bazel_binary", state_dir())
          .package(package_request(
              workspace(), {bazel_executable("bazel_binary", "fast", "//hello:hello"),
                            bazel_executable("bazel_binary", "opt", "//hello", {"-c", "opt"}),
                            bazel_executable("bazel_binary", "again", "//hello:hello"),
                            bazel_executable("bazel_binary", "alias", "//hello:hello_alias")}));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;

  const std::vector<std::string> builds = build_commands();
  ASSERT_EQ(builds.size(), 2u);
  EXPECT_TRUE(
      contains(builds[0], " build --color=no --curses=no -- //hello:hello //hello:hello_alias ("))
      << builds[0];
  EXPECT_TRUE(contains(builds[1], " -c opt -- //hello:hello (")) << builds[1];

  const rapidjson::Document document = parse(result.out);
  const std::string fast = document["packaged"][0]["entrypoint"].GetString();
  const std::string opt = document["packaged"][1]["entrypoint"].GetString();
  EXPECT_TRUE(fast.ends_with("-fastbuild/bin/hello/hello")) << fast;
  EXPECT_TRUE(opt.ends_with("-opt/bin/hello/hello")) << opt;
  EXPECT_EQ(document["packaged"][2]["entrypoint"].GetString(), fast);
  EXPECT_EQ(document["packaged"][3]["entrypoint"].GetString(), fast);
  // A label listed twice is compared with earlier packagings, not with itself.
  EXPECT_FALSE(document["packaged"][2]["cached"].GetBool());
  EXPECT_EQ(run_shell("HELLO_NAME=opt " + shell_quote(opt) + " one 'two words'").out,
            greeting("opt"));
}

TEST_F(BazelPackager, BuildFailureNamesTheLabelAndShowsBazelOutput) {
  SORTIE_REQUIRE_BAZEL();
  const Result result =
      PackagerClient("bazel_binary", state_dir())
          .package(package_request(
              workspace(), {bazel_executable("bazel_binary", "missing", "//hello:missing")}));
  EXPECT_EQ(result.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(result.err, "executable 'missing' (bazel_binary, //hello:missing)"))
      << result.err;
  EXPECT_TRUE(contains(result.err, "no such target '//hello:missing'")) << result.err;
  const size_t bazel_lines = std::count(result.err.begin(), result.err.end(), '\n');
  EXPECT_LE(bazel_lines, 30u) << result.err;
}

TEST_F(BazelPackager, ContainerTargetMustMakeOneTarball) {
  SORTIE_REQUIRE_BAZEL();
  const Result result =
      PackagerClient("bazel_container", state_dir())
          .package(package_request(
              workspace(), {bazel_executable("bazel_container", "binary", "//hello:hello")}));
  EXPECT_EQ(result.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(result.err, "executable 'binary' (bazel_container, //hello:hello)"))
      << result.err;
  EXPECT_TRUE(contains(result.err, "exactly one output, a `docker save` tarball")) << result.err;
}

TEST_F(BazelPackager, LaunchDirOutsideAWorkspaceIsNamed) {
  SORTIE_REQUIRE_BAZEL();
  const Result result =
      PackagerClient("bazel_binary", state_dir())
          .package(package_request(state_dir(),
                                   {bazel_executable("bazel_binary", "hello", "//hello:hello")}));
  EXPECT_EQ(result.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(result.err, "`bazel info` failed in launch_dir " + state_dir() +
                                       ", which is not inside a Bazel workspace"))
      << result.err;
}

TEST_F(BazelPackager, BazelFailingInsideAWorkspaceIsGivenInBazelsWords) {
  SORTIE_REQUIRE_BAZEL();
  std::ofstream(workspace() + "/.bazelrc", std::ios::app) << "build --no_such_flag_xyz\n";
  const Result result =
      PackagerClient("bazel_binary", state_dir())
          .package(package_request(workspace(),
                                   {bazel_executable("bazel_binary", "hello", "//hello:hello")}));
  EXPECT_EQ(result.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(result.err, "`bazel info` failed in launch_dir " + workspace() +
                                       " (Bazel workspace " + workspace() + "); bazel said:"))
      << result.err;
  EXPECT_TRUE(contains(result.err, "Unrecognized option: --no_such_flag_xyz")) << result.err;
  EXPECT_FALSE(contains(result.err, "not inside a Bazel workspace")) << result.err;
}

TEST_F(BazelPackager, RelativeLabelIsRefused) {
  for (const char* label : {"hello:hello", ":hello", "hello"}) {
    const Result result = PackagerClient("bazel_binary", state_dir())
                              .package(package_request(
                                  workspace(), {bazel_executable("bazel_binary", "hello", label)}));
    EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT) << label;
    EXPECT_TRUE(contains(result.err, "executable 'hello' (bazel_binary): label '" +
                                         std::string(label) + "' is relative"))
        << result.err;
    EXPECT_TRUE(contains(result.err, "//pkg:target")) << result.err;
  }
  EXPECT_TRUE(build_commands().empty());
}

TEST_F(BazelPackager, PatternsNamingSeveralTargetsAreRefused) {
  for (const char* label : {"//hello:all", "//hello:*", "//hello:all-targets", "//...",
                            "//hello/...", "//hello/...:all"}) {
    const Result result =
        PackagerClient("bazel_container", state_dir())
            .package(package_request(workspace(),
                                     {bazel_executable("bazel_container", "image", label)}));
    EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT) << label;
    EXPECT_TRUE(contains(result.err,
                         "label '" + std::string(label) + "' is a pattern naming several targets"))
        << result.err;
  }
}

TEST_F(BazelPackager, UnknownMemberAndOtherKindsAreRefused) {
  const Result unknown_member =
      PackagerClient("bazel_binary", state_dir())
          .package(package_request(workspace(), {R"({"kind":"bazel_binary","name":"hello",)"
                                                 R"("label":"//hello:hello","path":"x"})"}));
  EXPECT_EQ(unknown_member.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(unknown_member.err, "executable 'hello' (bazel_binary): member 'path'"))
      << unknown_member.err;

  const Result other_kind =
      PackagerClient("bazel_binary", state_dir())
          .package(package_request(workspace(), {R"({"kind":"binary","name":"b","path":"x"})"}));
  EXPECT_EQ(other_kind.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(other_kind.err, "kind 'binary' reached the bazel_binary packager"))
      << other_kind.err;
}

TEST_F(BazelPackager, MissingBazelNamesTheFix) {
  ::setenv("SORTIE_BAZEL", "/nonexistent/bazel", 1);
  const std::string request =
      package_request(workspace(), {bazel_executable("bazel_binary", "hello", "//hello:hello")});
  const Result configured = PackagerClient("bazel_binary", state_dir()).package(request);
  EXPECT_EQ(configured.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(configured.err, "need the `bazel` command")) << configured.err;
  EXPECT_TRUE(contains(configured.err, "SORTIE_BAZEL=/nonexistent/bazel")) << configured.err;
  EXPECT_TRUE(contains(configured.err, "packaging/engines/bazel_up.sh")) << configured.err;

  // Not on PATH either.
  ::unsetenv("SORTIE_BAZEL");
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", state_dir().c_str(), 1);
  const Result unset = PackagerClient("bazel_binary", state_dir()).package(request);
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(unset.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_TRUE(contains(unset.err, "searched on PATH")) << unset.err;
  EXPECT_TRUE(contains(unset.err, "packaging/engines/bazel_up.sh")) << unset.err;
}

TEST_F(BazelPackager, ImageTarballLoadsIntoDockerAndRuns) {
  SORTIE_REQUIRE_BAZEL();
  SORTIE_REQUIRE_DOCKER();
  const Result result =
      PackagerClient("bazel_container", state_dir())
          .package(package_request(
              workspace(), {bazel_executable("bazel_container", "image", "//hello:image.tar")}));
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const std::string image_path =
      parse(result.out)["packaged"][0]["executable"]["image_path"].GetString();

  const CommandOutput loaded = run_shell("docker load -i " + shell_quote(image_path) + " 2>&1");
  ASSERT_EQ(loaded.exit_code, 0) << loaded.out;
  EXPECT_TRUE(contains(loaded.out, std::string("Loaded image: ") + kImageTag)) << loaded.out;
  // The image id is the digest of the config the tarball carries under that digest's name.
  const std::string id =
      trimmed(run_shell(std::string("docker image inspect --format '{{.Id}}' ") + kImageTag).out);
  const std::string listing = run_shell("tar -tf " + shell_quote(image_path)).out;
  EXPECT_TRUE(id.starts_with("sha256:") && contains(listing, id.substr(7) + ".json\n"))
      << id << "\n"
      << listing;

  const CommandOutput ran = run_shell(std::string("docker run --rm -e HELLO_NAME=container ") +
                                      kImageTag + " one 'two words'");
  EXPECT_EQ(ran.exit_code, 0);
  EXPECT_EQ(ran.out, greeting("container"));
  run_shell(std::string("docker rmi ") + kImageTag + " >/dev/null 2>&1");
}

}  // namespace
}  // namespace sortie::bazel::testing
