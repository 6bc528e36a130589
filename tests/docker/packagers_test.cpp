// The container, dockerfile and python_container packagers through the packager C ABI (the
// vtable SORTIE_PACKAGER exports), against the real Engine: references, docker save archives
// (loaded once, then reused), content-tagged builds that are reused until an input changes, build
// failures with the Engine's text, and Python projects run by local_docker with the image's own
// ENTRYPOINT. The generated Dockerfile, base-image parsing, image names and archive reading are
// checked without an Engine.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "container_packager.hpp"
#include "docker_test_support.hpp"
#include "dockerfile_packager.hpp"
#include "image_archive.hpp"
#include "image_build.hpp"
#include "python_container.hpp"
#include "python_container_packager.hpp"
#include "tar_writer.hpp"

namespace sortie::docker::testing {
namespace {

constexpr const char* kPythonTestImage = "sortie-test/python:3.11";

struct Packaged {
  sortie_status status = SORTIE_OK;
  std::string out;
  std::string err;
};

void append_to(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

sortie_str str(const std::string& text) { return {text.data(), text.size()}; }

// create, package, destroy through the packager vtable of class T, as the host calls it.
template <class T>
Packaged package_with(const std::string& request, const std::string& state_dir = "") {
  const sortie_packager_vtable* table = sortie::detail::PackagerTable<T>::get();
  Packaged result;
  sortie_sink out{&result.out, append_to};
  sortie_sink err{&result.err, append_to};
  const std::string config = R"({"schema":"sortie.packager_config/1","name":"test",)"
                             R"("session":"test","state_dir":)" +
                             plugins_common::quote(state_dir) + "}";
  sortie_packager* self = nullptr;
  result.status = table->create(str(config), &self, &err);
  if (result.status != SORTIE_OK) return result;
  result.status = table->package(self, str(request), &out, &err);
  table->destroy(self);
  return result;
}

std::string request(const std::string& launch_dir, const std::string& executable) {
  return R"({"schema":"sortie.package_request/1","launch_dir":)" +
         plugins_common::quote(launch_dir) + R"(,"executables":[)" + executable + "]}";
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

bool logged(const std::string& needle) {
  for (const std::string& line : HostLog::get().lines()) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

std::string image_id(const std::string& image) {
  Engine engine(docker_socket_from_environment());
  return local_image_id(engine, image);
}

// The one element of a successful package_result.
rapidjson::Document single(const Packaged& packaged) {
  EXPECT_EQ(packaged.status, SORTIE_OK) << packaged.err;
  rapidjson::Document answer = parse(packaged.out);
  rapidjson::Document element;
  if (answer.IsObject() && answer["packaged"].IsArray() && answer["packaged"].Size() == 1) {
    element.CopyFrom(answer["packaged"][0], element.GetAllocator());
    EXPECT_STREQ(element["kind"].GetString(), "image");
    EXPECT_TRUE(element["entrypoint"].IsNull());
  } else {
    ADD_FAILURE() << "not one packaged element: " << packaged.out;
    element.SetObject();
  }
  return element;
}

// Removes the images a test made, so runs never accumulate them.
class DockerPackagers : public DockerAppFixture {
 protected:
  void TearDown() override {
    DockerAppFixture::TearDown();
    Engine engine(docker_socket_from_environment());
    for (const std::string& image : images_) {
      engine.call("DELETE", "/images/" + http::url_encode(image) + "?force=1");
    }
  }
  std::string made(const rapidjson::Document& packaged) {
    const std::string image = packaged["image"].GetString();
    images_.push_back(image);
    return image;
  }
  // The combined output of an app that ran to its end.
  std::string app_output(const std::string& app_id) {
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
    return output;
  }

  std::vector<std::string> images_;
};

TEST_F(DockerPackagers, ContainerReferenceThatIsLocalIsUsedAsItIs) {
  const rapidjson::Document packaged = single(package_with<ContainerPackager>(request(
      "/",
      R"({"kind":"container","name":"eval","image_path":")" + std::string(kTestImage) + R"("})")));
  EXPECT_EQ(packaged["image"].GetString(), std::string(kTestImage));
  EXPECT_EQ(packaged["digest"].GetString(), image_id(kTestImage));
  EXPECT_TRUE(packaged["cached"].GetBool());
}

TEST_F(DockerPackagers, ContainerUnknownReferenceNamesTheImage) {
  const Packaged packaged = package_with<ContainerPackager>(request(
      "/",
      R"({"kind":"container","name":"eval","image_path":"localhost:5000/sortie-test/absent:1"})"));
  EXPECT_NE(packaged.status, SORTIE_OK);
  EXPECT_NE(packaged.err.find("executable 'eval' (container)"), std::string::npos) << packaged.err;
  EXPECT_NE(packaged.err.find("localhost:5000/sortie-test/absent:1"), std::string::npos)
      << packaged.err;
  EXPECT_NE(packaged.err.find("pulling it failed: manifest for"), std::string::npos)
      << packaged.err;
}

TEST_F(DockerPackagers, ContainerArchiveIsLoadedOnceThenReused) {
  // A tag of the test image only this archive holds: after untagging, only the load brings it.
  Engine engine(docker_socket_from_environment());
  const std::string tag = fresh_app_id("load");
  const std::string image = "sortie-test/loaded:" + tag;
  engine.expect("POST",
                "/images/" + http::url_encode(kTestImage) + "/tag?repo=" +
                    http::url_encode("sortie-test/loaded") + "&tag=" + http::url_encode(tag),
                "tagging");
  images_.push_back(image);
  const std::string archive =
      engine.expect("GET", "/images/" + http::url_encode(image) + "/get", "saving").body;
  engine.expect("DELETE", "/images/" + http::url_encode(image), "untagging");
  ASSERT_TRUE(image_id(image).empty());

  TempDir launch_dir;
  TempDir state_dir;
  write(launch_dir.path() + "/images/eval.tar", archive);
  const std::string executable =
      R"({"kind":"container","name":"eval","image_path":"images/eval.tar"})";
  HostLog::get().clear();
  const rapidjson::Document first = single(
      package_with<ContainerPackager>(request(launch_dir.path(), executable), state_dir.path()));
  EXPECT_EQ(first["image"].GetString(), image);
  EXPECT_EQ(first["digest"].GetString(), image_id(kTestImage));
  EXPECT_FALSE(first["cached"].GetBool());
  EXPECT_TRUE(logged("loading " + launch_dir.path() + "/images/eval.tar"));

  HostLog::get().clear();
  const rapidjson::Document second = single(
      package_with<ContainerPackager>(request(launch_dir.path(), executable), state_dir.path()));
  EXPECT_EQ(second["image"].GetString(), image);
  EXPECT_EQ(second["digest"].GetString(), std::string(first["digest"].GetString()));
  EXPECT_TRUE(second["cached"].GetBool());
  EXPECT_FALSE(logged("loading "));
}

TEST_F(DockerPackagers, ContainerArchiveOfTwoImagesOrAMissingFileIsRefused) {
  TempDir launch_dir;
  TarWriter tar;
  tar.add_file("manifest.json", 0644, 0,
               R"([{"Config":"aa.json","RepoTags":["a:1"],"Layers":[]},)"
               R"({"Config":"bb.json","RepoTags":["b:1"],"Layers":[]}])");
  write(launch_dir.path() + "/two.tar", tar.finish());
  Packaged packaged = package_with<ContainerPackager>(
      request(launch_dir.path(), R"({"kind":"container","name":"two","image_path":"two.tar"})"));
  EXPECT_EQ(packaged.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(packaged.err.find("holds 2 images"), std::string::npos) << packaged.err;

  packaged = package_with<ContainerPackager>(request(
      launch_dir.path(), R"({"kind":"container","name":"gone","image_path":"./gone.tar"})"));
  EXPECT_EQ(packaged.status, SORTIE_NOT_FOUND);
  EXPECT_NE(packaged.err.find(launch_dir.path() + "/gone.tar"), std::string::npos) << packaged.err;
}

TEST_F(DockerPackagers, DockerfileIsBuiltOnceAndRebuiltWhenTheContextChanges) {
  TempDir launch_dir;
  const std::string web = launch_dir.path() + "/web";
  write(web + "/Dockerfile",
        "FROM " + std::string(kTestImage) + "\nCOPY . /site\nCMD [\"cat\", \"/site/index\"]\n");
  write(web + "/index", "page " + fresh_app_id("page") + "\n");
  write(web + "/.dockerignore", "*.log\n");
  write(web + "/debug.log", "ignored");
  const std::string executable = R"({"kind":"dockerfile","name":"Web App","path":"web"})";

  HostLog::get().clear();
  const rapidjson::Document first =
      single(package_with<DockerfilePackager>(request(launch_dir.path(), executable)));
  const std::string image = made(first);
  EXPECT_EQ(image.rfind("sortie-xm/web-app:", 0), 0u) << image;
  EXPECT_EQ(image.size(), std::string("sortie-xm/web-app:").size() + 16) << image;
  EXPECT_EQ(first["digest"].GetString(), image_id(image));
  EXPECT_FALSE(first["cached"].GetBool());
  EXPECT_TRUE(logged("building " + image));

  HostLog::get().clear();
  write(web + "/debug.log", "ignored files change nothing");
  const rapidjson::Document second =
      single(package_with<DockerfilePackager>(request(launch_dir.path(), executable)));
  EXPECT_EQ(second["image"].GetString(), image);
  EXPECT_EQ(second["digest"].GetString(), std::string(first["digest"].GetString()));
  EXPECT_TRUE(second["cached"].GetBool());
  EXPECT_FALSE(logged("building "));

  write(web + "/index", "another page\n");
  const rapidjson::Document third =
      single(package_with<DockerfilePackager>(request(launch_dir.path(), executable)));
  EXPECT_NE(made(third), image);
  EXPECT_STRNE(third["digest"].GetString(), first["digest"].GetString());
  EXPECT_FALSE(third["cached"].GetBool());
}

TEST_F(DockerPackagers, DockerfileOutsideTheContextIsUsed) {
  TempDir launch_dir;
  write(launch_dir.path() + "/docker/app.Dockerfile",
        "FROM " + std::string(kTestImage) + "\nCOPY marker /marker\n");
  write(launch_dir.path() + "/src/marker", fresh_app_id("marker"));
  const rapidjson::Document packaged = single(package_with<DockerfilePackager>(request(
      launch_dir.path(),
      R"({"kind":"dockerfile","name":"app","path":"src","dockerfile":"docker/app.Dockerfile"})")));
  made(packaged);
  EXPECT_EQ(packaged["digest"].GetString(), image_id(packaged["image"].GetString()));

  const Packaged missing = package_with<DockerfilePackager>(
      request(launch_dir.path(), R"({"kind":"dockerfile","name":"app","path":"docker"})"));
  EXPECT_EQ(missing.status, SORTIE_NOT_FOUND);
  EXPECT_NE(missing.err.find("no Dockerfile at " + launch_dir.path() + "/docker/Dockerfile"),
            std::string::npos)
      << missing.err;
}

TEST_F(DockerPackagers, DockerfileFailingRunCarriesTheEnginesTextAndTheBuildOutput) {
  TempDir launch_dir;
  const std::string marker = fresh_app_id("about-to-fail");
  write(launch_dir.path() + "/Dockerfile",
        "FROM " + std::string(kTestImage) + "\nRUN echo " + marker + " && exit 3\n");
  const Packaged packaged = package_with<DockerfilePackager>(
      request(launch_dir.path(), R"({"kind":"dockerfile","name":"broken"})"));
  EXPECT_EQ(packaged.status, SORTIE_FAILED_PRECONDITION);
  EXPECT_NE(packaged.err.find("executable 'broken' (dockerfile)"), std::string::npos)
      << packaged.err;
  EXPECT_NE(packaged.err.find("returned a non-zero code: 3"), std::string::npos) << packaged.err;
  EXPECT_NE(packaged.err.find("last build output:"), std::string::npos) << packaged.err;
  EXPECT_NE(packaged.err.find("\n  " + marker), std::string::npos) << packaged.err;
}

// Fails under CI=true, skips elsewhere, when the python_container base image is missing.
#define SORTIE_REQUIRE_PYTHON_IMAGE()                                             \
  do {                                                                            \
    if (image_id(kPythonTestImage).empty()) {                                     \
      if (in_ci()) {                                                              \
        FAIL() << "CI=true and the test image " << kPythonTestImage               \
               << " is missing (run packaging/engines/python_image_up.sh)";       \
      }                                                                           \
      GTEST_SKIP() << kPythonTestImage << " is missing (run python_image_up.sh)"; \
    }                                                                             \
  } while (0)

// A project printing its arguments and an environment variable, as `python -m app.main`.
void write_python_project(const std::string& dir) {
  write(dir + "/app/__init__.py", "");
  write(dir + "/app/main.py",
        "import os, sys\nprint('argv', sys.argv[1:])\nprint('env', os.environ.get('XM_TEST'))\n");
  write(dir + "/marker", fresh_app_id("project"));  // this run's own image
}

// Runs `image` through local_docker with no entrypoint (the image's own) and `args`.
std::string run_role(const std::string& image, const std::string& app_id) {
  return dryrun_input(app_id, R"([{"name":"trainer","image":)" + plugins_common::quote(image) +
                                  R"(,"entrypoint":"","args":["--lr=0.1","two words"],)"
                                  R"("env":{"XM_TEST":"hello"}}])");
}

TEST_F(DockerPackagers, PythonContainerModuleRunsWithTheJobsArgs) {
  SORTIE_REQUIRE_PYTHON_IMAGE();
  TempDir launch_dir;
  write_python_project(launch_dir.path() + "/proj");
  const std::string executable = R"({"kind":"python_container","name":"trainer","path":"proj",)"
                                 R"("entrypoint":{"module":"app.main"},"base_image":")" +
                                 std::string(kPythonTestImage) +
                                 R"(","docker_instructions":null,"use_deep_module":false})";
  const rapidjson::Document packaged =
      single(package_with<PythonContainerPackager>(request(launch_dir.path(), executable)));
  const std::string image = made(packaged);
  EXPECT_EQ(image.rfind("sortie-xm/trainer:", 0), 0u) << image;
  EXPECT_EQ(packaged["digest"].GetString(), image_id(image));
  EXPECT_FALSE(packaged["cached"].GetBool());
  const rapidjson::Document again =
      single(package_with<PythonContainerPackager>(request(launch_dir.path(), executable)));
  EXPECT_TRUE(again["cached"].GetBool());
  EXPECT_EQ(again["digest"].GetString(), std::string(packaged["digest"].GetString()));

  const std::string app_id = fresh_app_id("pymodule");
  const std::string dry = scheduler()->dryrun(run_role(image, app_id));
  const rapidjson::Document plan = parse(dry);
  const rapidjson::Value& create = plan["request"]["containers"][0]["create"];
  EXPECT_FALSE(create.HasMember("Entrypoint")) << dry;
  EXPECT_EQ(create["Cmd"].Size(), 2u) << dry;
  apps_.push_back(scheduler()->schedule(dry));
  const rapidjson::Document status = wait_terminal(app_id);
  const std::string output = app_output(app_id);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED")
      << plugins_common::to_json_text(status) << output;
  EXPECT_NE(output.find("argv ['--lr=0.1', 'two words']"), std::string::npos) << output;
  EXPECT_NE(output.find("env hello"), std::string::npos) << output;
}

TEST_F(DockerPackagers, PythonContainerCommandListOnTheDefaultBaseImage) {
  SORTIE_REQUIRE_PYTHON_IMAGE();
  ::setenv("SORTIE_PYTHON_BASE_IMAGE", kPythonTestImage, 1);
  TempDir launch_dir;
  write_python_project(launch_dir.path() + "/proj");
  const Packaged result = package_with<PythonContainerPackager>(request(
      launch_dir.path(),
      R"({"kind":"python_container","name":"cmds","path":"proj","use_deep_module":true,)"
      R"("entrypoint":{"commands":["echo first-command; pwd","python -m proj.app.main"]}})"));
  ::unsetenv("SORTIE_PYTHON_BASE_IMAGE");
  const rapidjson::Document packaged = single(result);
  const std::string image = made(packaged);

  const std::string app_id = fresh_app_id("pycommands");
  submit(run_role(image, app_id));
  const rapidjson::Document status = wait_terminal(app_id);
  const std::string output = app_output(app_id);
  EXPECT_STREQ(status["state"].GetString(), "SUCCEEDED")
      << plugins_common::to_json_text(status) << output;
  EXPECT_NE(output.find("first-command\n/workdir\n"), std::string::npos) << output;
  EXPECT_NE(output.find("argv ['--lr=0.1', 'two words']"), std::string::npos) << output;
  EXPECT_NE(output.find("env hello"), std::string::npos) << output;
}

TEST_F(DockerPackagers, PythonContainerMissingBaseImageNamesIt) {
  TempDir launch_dir;
  write_python_project(launch_dir.path());
  const Packaged packaged = package_with<PythonContainerPackager>(
      request(launch_dir.path(), R"({"kind":"python_container","name":"p","entrypoint":)"
                                 R"({"module":"app.main"},"base_image":)"
                                 R"("localhost:5000/sortie-test/absent-python:1"})"));
  EXPECT_NE(packaged.status, SORTIE_OK);
  EXPECT_NE(packaged.err.find("localhost:5000/sortie-test/absent-python:1"), std::string::npos)
      << packaged.err;
  EXPECT_NE(packaged.err.find("set 'base_image'"), std::string::npos) << packaged.err;
}

TEST(DockerPythonContainerTemplate, DefaultInstructionsCopyTheProjectAndInstallRequirements) {
  PythonContainerSpec spec;
  spec.directory = "proj";
  spec.base_image = "python:3.11-slim";
  spec.module = "trainer.main";
  EXPECT_EQ(python_container_dockerfile(spec),
            "FROM python:3.11-slim\n"
            "ENV LANG=C.UTF-8\n"
            "COPY [\"proj/\", \"/proj\"]\n"
            "WORKDIR /proj\n"
            "ENV PYTHONUNBUFFERED=1\n"
            "COPY entrypoint.sh /sortie/entrypoint.sh\n"
            "ENTRYPOINT [\"/bin/sh\", \"/sortie/entrypoint.sh\"]\n");
  spec.has_requirements = true;
  spec.use_deep_module = true;
  EXPECT_EQ(python_container_dockerfile(spec),
            "FROM python:3.11-slim\n"
            "ENV LANG=C.UTF-8\n"
            "WORKDIR /workdir\n"
            "COPY [\"proj/requirements.txt\", \"/workdir/proj/requirements.txt\"]\n"
            "RUN python -m pip install -r \"/workdir/proj/requirements.txt\"\n"
            "COPY [\"proj/\", \"/workdir/proj\"]\n"
            "ENV PYTHONUNBUFFERED=1\n"
            "COPY entrypoint.sh /sortie/entrypoint.sh\n"
            "ENTRYPOINT [\"/bin/sh\", \"/sortie/entrypoint.sh\"]\n");
  spec.docker_instructions = std::vector<std::string>{"COPY proj/ /src", "WORKDIR /src"};
  EXPECT_EQ(
      python_container_dockerfile(spec).rfind(
          "FROM python:3.11-slim\nCOPY proj/ /src\nWORKDIR /src\nENV PYTHONUNBUFFERED=1\n", 0),
      0u)
      << python_container_dockerfile(spec);
}

TEST(DockerPythonContainerTemplate, EntrypointPassesTheJobsArgsOnce) {
  PythonContainerSpec spec;
  spec.module = "trainer.main";
  EXPECT_NE(python_container_entrypoint(spec).find("\nexec python -m trainer.main \"$@\"\n"),
            std::string::npos);
  spec.module.clear();
  spec.commands = {"pip list", "python train.py"};
  EXPECT_NE(python_container_entrypoint(spec).find("\npip list\npython train.py \"$@\"\n"),
            std::string::npos);
  spec.commands = {"python train.py --x \"$@\" --y"};
  EXPECT_NE(python_container_entrypoint(spec).find("\npython train.py --x \"$@\" --y\n"),
            std::string::npos);
}

TEST(DockerImageBuild, BaseImagesSkipStagesScratchAndArguments) {
  EXPECT_EQ(dockerfile_base_images("# syntax\nARG V=1\nFROM --platform=linux/amd64 golang:1 AS "
                                   "build\nRUN x\nfrom build AS test\nFROM scratch\nFROM "
                                   "busybox:$V\nFROM debian:12\nFROM golang:1\n"),
            (std::vector<std::string>{"golang:1", "debian:12"}));
}

TEST(DockerImageBuild, ContentImageNameIsARepositoryPath) {
  const std::string digest(64, 'a');
  EXPECT_EQ(content_image_name("Web App__v2", digest), "sortie-xm/web-app-v2:aaaaaaaaaaaaaaaa");
  EXPECT_EQ(content_image_name("--", digest), "sortie-xm/image:aaaaaaaaaaaaaaaa");
}

TEST(DockerImageArchive, ReadsTheManifestOfADockerSaveArchive) {
  TarWriter tar;
  tar.add_file("blobs/sha256/" + std::string(64, 'c'), 0644, 0, "{}");
  tar.add_file("manifest.json", 0644, 0,
               R"([{"Config":"blobs/sha256/)" + std::string(64, 'c') +
                   R"(","RepoTags":["x/y:1","x/y:2"],"Layers":[]}])");
  const std::vector<ArchivedImage> images = read_image_archive(tar.finish(), "a.tar");
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0].id, "sha256:" + std::string(64, 'c'));
  EXPECT_EQ(images[0].repo_tags, (std::vector<std::string>{"x/y:1", "x/y:2"}));

  TarWriter long_names;
  long_names.add_file(std::string(120, 'd') + "/layer.tar", 0644, 0, "layer");
  long_names.add_file("manifest.json", 0644, 0, R"([{"Config":"ee.json","RepoTags":null}])");
  EXPECT_EQ(read_image_archive(long_names.finish(), "b.tar")[0].id, "sha256:ee");

  EXPECT_THROW(read_image_archive(std::string(1024, 'x'), "c.tar"), Error);
  TarWriter without_manifest;
  without_manifest.add_file("other", 0644, 0, "x");
  EXPECT_THROW(read_image_archive(without_manifest.finish(), "d.tar"), Error);
}

}  // namespace
}  // namespace sortie::docker::testing
