// `sortie plugins`, discovery through SORTIE_PLUGIN_PATH, and bad manifests seen from the CLI.
#include <gtest/gtest.h>

#include <regex>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

std::string manifest_for(const std::string& library, const std::string& scheduler) {
  return R"({"file_format_version": "1.0",
 "plugin": {"name": "bomb", "version": "1.0", "library": ")" +
         library + R"(", "abi": {"min": "1.0", "max": "1.0"}},
 "provides": [{"group": "sortie.schedulers", "name": ")" +
         scheduler + R"("}]})";
}

TEST(CliPlugins, ListReadsManifestsAndLoadsNoLibrary) {
  CliSandbox sandbox;
  // The library aborts the process when loaded, so listing survives only if it never loads it.
  sandbox.write_file("extra/bomb.json", manifest_for(ABORTING_PLUGIN_PATH, "bomb"));
  const auto list =
      sandbox.sortie({"plugins", "list"}, {{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(list.out, std::regex("sortie.schedulers +bomb +bomb 1.0")))
      << list.out;
  EXPECT_TRUE(std::regex_search(list.out, std::regex("sortie.schedulers +local_cwd "))) << list.out;
  EXPECT_TRUE(std::regex_search(list.out, std::regex("sortie.components +utils.echo ")))
      << list.out;
  EXPECT_NE(list.out.find(sandbox.root() + "/extra (SORTIE_PLUGIN_PATH)"), std::string::npos)
      << list.out;

  // Using it does load it: the abort proves the fixture works.
  const auto run = sandbox.sortie({"run", "-s", "bomb", "--", "true"},
                                  {{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}});
  EXPECT_EQ(run.exit_code, 128 + 6) << run.err;
}

TEST(CliPlugins, AThirdPartyManifestIsAdditiveAndShadowingIsReported) {
  CliSandbox sandbox;
  sandbox.write_file("extra/shadow.json", manifest_for("/nonexistent/libx.so", "local_dir"));
  const auto list =
      sandbox.sortie({"plugins", "list"}, {{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(list.out, std::regex("sortie.schedulers +local_cwd "))) << list.out;
  EXPECT_NE(list.out.find("shadowed"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("sortie.schedulers:local_dir"), std::string::npos) << list.out;
}

TEST(CliPlugins, MalformedManifestIsReportedAndEverythingElseWorks) {
  CliSandbox sandbox;
  sandbox.write_file("extra/broken.json", "{\"file_format_version\": \"1.0\",\n \"provides\": [\n");
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}};
  const auto list = sandbox.sortie({"plugins", "list"}, env);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(sandbox.root() + "/extra/broken.json"), std::string::npos) << list.out;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "true"}, env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("broken.json"), std::string::npos) << run.err;
}

TEST(CliPlugins, ShowLoadsThePluginAndReportsItsComponents) {
  CliSandbox sandbox;
  const auto show = sandbox.sortie({"plugins", "show", "local_cwd"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("ABI: 1.0"), std::string::npos) << show.out;
  EXPECT_TRUE(std::regex_search(show.out, std::regex("scheduler +local_dir")));
  EXPECT_TRUE(std::regex_search(show.out, std::regex("image provider +cwd")));
}

TEST(CliPlugins, UnknownSchedulerListsTheAvailableOnes) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cdw", "--", "true"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("unknown scheduler 'local_cdw'"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("did you mean 'local_cwd'"), std::string::npos) << run.err;
}

TEST(CliPlugins, CatalogCommandsListWhatTheManifestsDefine) {
  CliSandbox sandbox;
  const auto builtins = sandbox.sortie({"builtins"});
  EXPECT_EQ(builtins.exit_code, 0) << builtins.err;
  for (const char* name : {"utils.echo", "utils.sh", "utils.python", "dist.spmd"}) {
    EXPECT_NE(builtins.out.find(name), std::string::npos) << name << " in " << builtins.out;
  }
  const auto resource = sandbox.sortie({"resources", "gpu.small"});
  EXPECT_EQ(resource.exit_code, 0) << resource.err;
  EXPECT_NE(resource.out.find("\"gpu\":1"), std::string::npos) << resource.out;
  const auto runopts = sandbox.sortie({"runopts", "local_cwd"});
  EXPECT_EQ(runopts.exit_code, 0) << runopts.err;
  EXPECT_NE(runopts.out.find("log_dir (str"), std::string::npos) << runopts.out;
  EXPECT_NE(runopts.out.find("auto_set_cuda_visible_devices (bool"), std::string::npos)
      << runopts.out;
}

}  // namespace
}  // namespace sortie::testing
