// The docker image provider against the real Engine: the workspace is built over role.image
// honouring .dockerignore, an unchanged workspace reuses its image, a change rebuilds, and
// local_docker pushes the image to image_repo (a registry on 127.0.0.1:5000) and runs it.
#include "image_provider.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "docker_test_support.hpp"

namespace sortie::docker::testing {
namespace {

using DockerWorkspace = DockerAppFixture;

// Runs fetch() with `dir` as the working directory, as the CLI would from that directory.
rapidjson::Document fetch_in(const std::string& dir, const std::string& image) {
  const std::string previous = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  DockerImageProvider provider(R"({"schema":"sortie.image_provider_config/1","name":"docker"})");
  std::string answer;
  try {
    answer = provider.fetch(R"({"name":"trainer","image":)" + quote(image) + "}");
  } catch (...) {
    std::filesystem::current_path(previous);
    throw;
  }
  std::filesystem::current_path(previous);
  return parse(answer);
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

bool logged(const std::string& needle) {
  for (const std::string& line : HostLog::get().lines()) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST_F(DockerWorkspace, BuildsHonoursDockerignoreAndReusesAnUnchangedWorkspace) {
  TempDir workspace;
  // A unique file makes this run's image new, so the build path really runs.
  write(workspace.path() + "/train.sh", "echo training " + fresh_app_id("ws") + "\n");
  write(workspace.path() + "/secret/key", "do not ship");
  write(workspace.path() + "/notes.tmp", "scratch");
  write(workspace.path() + "/.dockerignore", "# comment\nsecret\n*.tmp\n");
  HostLog::get().clear();
  const rapidjson::Document first = fetch_in(workspace.path(), kTestImage);
  const std::string image = first["image"].GetString();
  EXPECT_EQ(image.rfind("sortie-workspace:", 0), 0u) << image;
  EXPECT_STREQ(first["schema"].GetString(), "sortie.image/1");
  EXPECT_TRUE(logged("building " + image)) << "no build progress logged";

  HostLog::get().clear();
  const rapidjson::Document second = fetch_in(workspace.path(), kTestImage);
  EXPECT_EQ(second["image"].GetString(), image);
  EXPECT_TRUE(logged("reusing " + image));
  EXPECT_FALSE(logged("building "));

  write(workspace.path() + "/notes.tmp", "ignored files do not change the image");
  EXPECT_EQ(fetch_in(workspace.path(), kTestImage)["image"].GetString(), image);

  // The image holds the workspace, minus what .dockerignore excludes.
  const std::string app_id = fresh_app_id("wsrun");
  const std::string images = R"({"a":)" + to_json_text(first) + "}";
  submit(dryrun_input(app_id,
                      "[" +
                          shell_role("a",
                                     "cat /train.sh; ls /secret /notes.tmp 2>&1 | "
                                     "grep -c 'No such'") +
                          "]",
                      R"({"image_provider":"docker"})", images));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED") << to_json_text(status);
  std::string output;
  struct Collect {
    static void line(void* ctx, const sortie_log_line* line) {
      static_cast<std::string*>(ctx)->append(line->data.ptr, line->data.len);
    }
  };
  sortie_log_sink sink{&output, &Collect::line};
  auto stream = scheduler()->log_open(app_id, "{}");
  while (stream->next(5000, LogSink(&sink))) {
  }
  EXPECT_NE(output.find("echo training"), std::string::npos) << output;
  EXPECT_NE(output.find("2\n"), std::string::npos) << output;

  write(workspace.path() + "/train.sh", "echo changed\n");
  EXPECT_NE(fetch_in(workspace.path(), kTestImage)["image"].GetString(), image);
}

TEST_F(DockerWorkspace, MissingBaseImageIsAClearError) {
  TempDir workspace;
  try {
    fetch_in(workspace.path(), "localhost:5000/sortie-test/absent:1");
    FAIL() << "fetch succeeded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("absent"), std::string::npos) << error.what();
  }
  EXPECT_THROW(fetch_in(workspace.path(), "."), Error);
}

TEST_F(DockerWorkspace, ImageRepoPushesTheWorkspaceImageAndRunsIt) {
  http::Endpoint endpoint;
  endpoint.base_url = "http://127.0.0.1:5000";
  http::Client registry(endpoint);
  http::Request ping;
  ping.path = "/v2/";
  try {
    if (!registry.send(ping).ok()) throw Error::unavailable("no registry");
  } catch (const Error&) {
    if (in_ci()) FAIL() << "CI=true and no registry on 127.0.0.1:5000 (run registry_up.sh)";
    GTEST_SKIP() << "no registry on 127.0.0.1:5000 (run packaging/engines/registry_up.sh)";
  }
  TempDir workspace;
  write(workspace.path() + "/marker", fresh_app_id("push"));
  const rapidjson::Document image = fetch_in(workspace.path(), kTestImage);
  const std::string tag = parse_image_reference(image["image"].GetString()).tag;
  const std::string repo = "localhost:5000/sortie-test/workspace";
  const std::string app_id = fresh_app_id("pushed");
  HostLog::get().clear();
  const std::string dry = scheduler()->dryrun(
      dryrun_input(app_id, "[" + shell_role("a", "cat /marker") + "]",
                   R"({"image_provider":"docker","image_repo":")" + repo + R"("})",
                   R"({"a":)" + to_json_text(image) + "}"));
  EXPECT_NE(dry.find(repo + ":" + tag), std::string::npos) << dry;
  apps_.push_back(scheduler()->schedule(dry));
  EXPECT_TRUE(logged("pushing " + repo + ":" + tag));
  EXPECT_STREQ(wait_terminal(app_id)["state"].GetString(), "SUCCEEDED");
  http::Request tags;
  tags.path = "/v2/sortie-test/workspace/tags/list";
  const http::Response listed = registry.send(tags);
  EXPECT_NE(listed.body.find(tag), std::string::npos) << listed.body;
  EXPECT_EQ(inspect(app_id + "-a-0")["Config"]["Image"].GetString(), repo + ":" + tag);
}

}  // namespace
}  // namespace sortie::docker::testing
