// The docker image provider against the real Engine: the workspace is built over role.image
// honouring .dockerignore, an unchanged workspace reuses its image, a change rebuilds, and
// local_docker pushes the image to image_repo (a registry on 127.0.0.1:5000) and runs it.
#include "image_provider.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "docker_test_support.hpp"

namespace sortie::docker::testing {
namespace {

using DockerWorkspace = DockerAppFixture;

std::string provider_config(const std::string& state_dir) {
  return R"({"schema":"sortie.image_provider_config/1","name":"docker")" +
         (state_dir.empty() ? "" : R"(,"state_dir":)" + plugins_common::quote(state_dir)) + "}";
}

// Runs fetch() with `dir` as the working directory, as the CLI would from that directory, with
// a provider made for this call (as each `sortie run` makes one) keeping its state in
// `state_dir` ("" for none).
rapidjson::Document fetch_in(const std::string& dir, const std::string& image,
                             const std::string& state_dir = "") {
  const std::string previous = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  DockerImageProvider provider(provider_config(state_dir));
  std::string answer;
  try {
    answer = provider.fetch(R"({"name":"trainer","image":)" + plugins_common::quote(image) + "}");
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

// How many workspace builds the provider started since the log was cleared.
size_t builds() {
  size_t count = 0;
  for (const std::string& line : HostLog::get().lines()) {
    count += line.rfind("building sortie-workspace:", 0) == 0 &&
             line.find(" files) over ") != std::string::npos;
  }
  return count;
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
  const std::string images = R"({"a":)" + plugins_common::to_json_text(first) + "}";
  submit(dryrun_input(app_id,
                      "[" +
                          shell_role("a",
                                     "cat /train.sh; ls /secret /notes.tmp 2>&1 | "
                                     "grep -c 'No such'") +
                          "]",
                      R"({"image_provider":"docker"})", images));
  const rapidjson::Document status = wait_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED") << plugins_common::to_json_text(status);
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

TEST_F(DockerWorkspace, RunsOfAnUnchangedWorkspaceBuildOnceAndAChangedFileBuildsAgain) {
  TempDir workspace;
  write(workspace.path() + "/train.sh", "echo " + fresh_app_id("once") + "\n");
  // Sortie's state inside the workspace (SORTIE_STATE_DIR=./state) is not part of it: every
  // run writes there, and would otherwise make the next run's workspace new.
  const std::string state = workspace.path() + "/state/image_providers/docker";
  HostLog::get().clear();
  const std::string image = fetch_in(workspace.path(), kTestImage, state)["image"].GetString();
  write(workspace.path() + "/state/schedulers/local_docker/apps/a.json", "{}");
  EXPECT_EQ(fetch_in(workspace.path(), kTestImage, state)["image"].GetString(), image);
  EXPECT_EQ(fetch_in(workspace.path(), kTestImage, state)["image"].GetString(), image);
  EXPECT_EQ(builds(), 1u);

  // A changed file makes a new image.
  write(workspace.path() + "/train.sh", "echo changed " + fresh_app_id("once") + "\n");
  const std::string changed = fetch_in(workspace.path(), kTestImage, state)["image"].GetString();
  EXPECT_NE(changed, image);
  EXPECT_EQ(fetch_in(workspace.path(), kTestImage, state)["image"].GetString(), changed);
  EXPECT_EQ(builds(), 2u);
}

TEST_F(DockerWorkspace, ConcurrentRunsOfOneWorkspaceWaitForOneBuild) {
  TempDir workspace;
  TempDir state;
  write(workspace.path() + "/data", std::string(8 << 20, 'x') + fresh_app_id("together"));
  const std::string previous = std::filesystem::current_path();
  std::filesystem::current_path(workspace.path());
  HostLog::get().clear();
  std::vector<std::string> images(3);
  std::vector<std::thread> runs;
  for (std::string& image : images) {
    runs.emplace_back([&image, &state] {
      try {
        DockerImageProvider provider(provider_config(state.path()));
        image = parse(provider.fetch(R"({"name":"trainer","image":")" + std::string(kTestImage) +
                                     R"("})"))["image"]
                    .GetString();
      } catch (const Error& error) {
        image = error.what();
      }
    });
  }
  for (std::thread& run : runs) run.join();
  std::filesystem::current_path(previous);
  EXPECT_EQ(images[1], images[0]);
  EXPECT_EQ(images[2], images[0]);
  EXPECT_EQ(builds(), 1u);
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
                   R"({"a":)" + plugins_common::to_json_text(image) + "}"));
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
