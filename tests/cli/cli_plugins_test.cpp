// `sortie plugins`, discovery through SORTIE_PLUGIN_PATH, bad manifests seen from the CLI, and
// plugin isolation (--isolate-plugins, `plugins doctor`) with the fixtures of tests/plugin_host.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <csignal>
#include <filesystem>
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

TEST(CliPlugins, PluginsOthersCanReplaceAreNotRead) {
  CliSandbox sandbox;
  const std::string dir = sandbox.root() + "/shared-plugins";
  sandbox.write_file("shared-plugins/aborting.json", manifest_for(ABORTING_PLUGIN_PATH, "bomb"));
  std::filesystem::permissions(
      dir, std::filesystem::perms::all);  // 0777, as a careless shared directory is
  const auto run =
      sandbox.sortie({"run", "-s", "bomb", "--", "true"}, {{"SORTIE_PLUGIN_PATH", dir}});
  EXPECT_EQ(run.exit_code, 2) << run.err;  // unknown scheduler: the library was never loaded
  EXPECT_NE(run.err.find(dir + " is writable by every user (chmod o-w " + dir), std::string::npos)
      << run.err;

  std::filesystem::permissions(dir, std::filesystem::perms::others_write,
                               std::filesystem::perm_options::remove);
  std::filesystem::permissions(dir + "/aborting.json", std::filesystem::perms::all);
  const auto manifest =
      sandbox.sortie({"run", "-s", "bomb", "--", "true"}, {{"SORTIE_PLUGIN_PATH", dir}});
  EXPECT_EQ(manifest.exit_code, 2) << manifest.err;
  EXPECT_NE(manifest.err.find(dir + "/aborting.json is writable by every user"), std::string::npos)
      << manifest.err;
}

TEST(CliPlugins, ShadowingABuiltInIsSaidOnStderr) {
  CliSandbox sandbox;
  sandbox.write_file("xdg-config/sortie/plugins.d/local.json",
                     manifest_for(ABORTING_PLUGIN_PATH, "local_cwd"));
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--", "true"});
  EXPECT_EQ(run.exit_code, 128 + 6) << run.err;  // the impostor did load: it is the user's choice
  EXPECT_NE(run.err.find("sortie: warning: sortie.schedulers:local_cwd of " + sandbox.root() +
                         "/xdg-config/sortie/plugins.d/local.json replaces the built-in one of "),
            std::string::npos)
      << run.err;
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
  EXPECT_NE(show.out.find("ABI: 1.2"), std::string::npos) << show.out;
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

// The bad-plugin fixtures built by tests/plugin_host/fixtures (lib/ and plugins.d/).
std::string fixture_dir() {
  const std::filesystem::path dir =
      std::filesystem::path(SORTIE_TEST_BINARY_DIR).parent_path() / "plugin_host" / "fixtures";
  if (!std::filesystem::exists(dir / "lib" / "libfixture_good.so")) {
    throw std::runtime_error("plugin fixtures are not built in " + dir.string() +
                             "; build the target sortie_plugin_fixtures");
  }
  return dir.string();
}

// A manifest in the sandbox for fixture library `fixture` whose scheduler is `scheduler`, saying
// `version` (the SDK fixtures' SORTIE_PLUGIN says 1.2.3).
void write_fixture_manifest(const CliSandbox& sandbox, const std::string& fixture,
                            const std::string& scheduler, const std::string& version = "1.2.3") {
  sandbox.write_file("fixtures/" + fixture + ".json",
                     R"({"file_format_version": "1.0", "plugin": {"name": ")" + fixture +
                         R"(", "version": ")" + version + R"(", "library": ")" + fixture_dir() +
                         "/lib/lib" + fixture + R"(.so", "abi": {"min": "1.0", "max": "1.0"}},
 "provides": [{"group": "sortie.schedulers", "name": ")" +
                         scheduler + R"("}]})");
}

TEST(CliPlugins, IsolatedRunsWorkEndToEnd) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"--isolate-plugins", "run", "-s", "local_cwd", "--wait", "--log",
                                   "utils.echo", "--msg", "hi"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("echo/0 hi"), std::string::npos) << run.out;
  const std::string handle = run.out.substr(0, run.out.find('\n'));
  const auto log = sandbox.sortie({"log", handle}, {{"SORTIE_ISOLATE_PLUGINS", "1"}});
  EXPECT_EQ(log.exit_code, 0) << log.err;
  EXPECT_EQ(log.out, "echo/0 hi\n");
}

TEST(CliPlugins, ACrashingPluginIsAnErrorWhenIsolated) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_segfault", "fixture_sched");
  const std::string dir = sandbox.root() + "/fixtures";
  const auto isolated = sandbox.sortie(
      {"--plugin-dir", dir, "--isolate-plugins", "run", "-s", "fixture_sched", "--", "true"});
  EXPECT_EQ(isolated.exit_code, 3) << isolated.err;
  EXPECT_TRUE(std::regex_search(
      isolated.err,
      std::regex("sortie run: error: scheduler 'fixture_sched' \\(plugin fixture_segfault, "
                 ".*libfixture_segfault.so\\): schedule failed: the plugin's process \\(pid "
                 "[0-9]+\\) died of SIGSEGV \\(Segmentation fault\\) during schedule; run "
                 "`sortie plugins doctor fixture_segfault` to check the plugin")))
      << isolated.err;
}

// `sortie run -s fixture_sched -- true` with only the fixtures' manifests on the search path.
CommandResult run_fixture_scheduler(const CliSandbox& sandbox) {
  return sandbox.sortie(
      {"--plugin-dir", sandbox.root() + "/fixtures", "run", "-s", "fixture_sched", "--", "true"});
}

TEST(CliPlugins, AnInProcessCrashNamesThePluginAndDisablesItUntilDoctorPasses) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_segfault", "fixture_sched");
  const std::string dir = sandbox.root() + "/fixtures";
  const auto crash = run_fixture_scheduler(sandbox);
  EXPECT_EQ(crash.exit_code, 3) << crash.err;
  EXPECT_TRUE(std::regex_search(
      crash.err, std::regex("sortie: scheduler 'fixture_sched' \\(plugin fixture_segfault, "
                            ".*libfixture_segfault.so\\) crashed sortie with SIGSEGV during "
                            "schedule; the plugin is disabled in process until `sortie plugins "
                            "doctor fixture_segfault` passes")))
      << crash.err;
  // Disabled: refused before it is loaded, so nothing crashes.
  const auto refused = run_fixture_scheduler(sandbox);
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("it crashed sortie before (SIGSEGV during schedule"),
            std::string::npos)
      << refused.err;
  // The doctor's checks (load, create, run_options) pass, but none of them is schedule: the
  // crash stays recorded and is the doctor's finding.
  const auto doctor = sandbox.sortie({"--plugin-dir", dir, "plugins", "doctor"});
  EXPECT_EQ(doctor.exit_code, 3) << doctor.out << doctor.err;
  EXPECT_TRUE(std::regex_search(
      doctor.out, std::regex("FAILED +recorded crash: it crashed sortie in process \\(SIGSEGV "
                             "during schedule, recorded in .*/plugin-faults/fixture_segfault\\), "
                             "in schedule, which doctor does not make")))
      << doctor.out;
  EXPECT_NE(run_fixture_scheduler(sandbox).err.find("it crashed sortie before (SIGSEGV during "
                                                    "schedule"),
            std::string::npos);
  // Once the record is deleted (a fixed plugin installed), it loads in process again.
  std::filesystem::remove(sandbox.root() + "/state/plugin-faults/fixture_segfault");
  const auto again = run_fixture_scheduler(sandbox);
  EXPECT_NE(again.err.find("crashed sortie with SIGSEGV"), std::string::npos) << again.err;
}

TEST(CliPlugins, AnInProcessExitInScheduleIsAFailureNamingThePlugin) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_exit", "fixture_sched");
  // The fixture calls exit(0) inside schedule: not a silent success without a handle.
  const auto exited = run_fixture_scheduler(sandbox);
  EXPECT_EQ(exited.exit_code, 3) << exited.out << exited.err;
  EXPECT_EQ(exited.out, "");
  EXPECT_TRUE(std::regex_search(
      exited.err, std::regex("sortie: scheduler 'fixture_sched' \\(plugin fixture_exit, "
                             ".*libfixture_exit.so\\) called exit\\(\\) during schedule; the "
                             "plugin is disabled in process until `sortie plugins doctor "
                             "fixture_exit` passes")))
      << exited.err;
  const auto refused = run_fixture_scheduler(sandbox);
  EXPECT_NE(refused.err.find("it crashed sortie before (exit() during schedule"), std::string::npos)
      << refused.err;
}

TEST(CliPlugins, ASchedulerThatStopsAnsweringDoesNotHoldUpList) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_slowdescribe", "fixture_sched");
  const std::map<std::string, std::string> env{
      {"SORTIE_PLUGIN_PATH", sandbox.root() + "/fixtures"}};
  const auto slow = sandbox.sortie({"run", "-s", "fixture_sched", "--", "true"}, env);
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  const auto local = sandbox.sortie({"run", "-s", "local_cwd", "--", "sleep", "60"}, env);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  // The describe that missed its deadline still runs when `list` ends: the fixture aborts if its
  // static state is destroyed under it, as exit() would do (docs/config-trust.md, TRUST-11).
  const auto list = sandbox.sortie({"--plugin-timeout", "1", "list"}, env);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(
      list.out, std::regex(first_line(slow.out) + " +true +SUBMITTED \\(unverified: scheduler "
                                                  "'fixture_sched' .* did not answer describe "
                                                  "within 1.00 s; the state shown is the one "
                                                  "recorded last\\)")))
      << list.out;
  EXPECT_TRUE(std::regex_search(list.out, std::regex(first_line(local.out) + " +sleep +RUNNING ")))
      << list.out;
  sandbox.sortie({"cancel", first_line(local.out)}, env);
}

TEST(CliPlugins, AnAppIdNoHandleCanHoldIsAPluginError) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_badappid", "fixture_sched");
  const auto run = run_fixture_scheduler(sandbox);
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("(plugin fixture_badappid, "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("schedule returned an app id that holds the byte 0x7B at offset 0"),
            std::string::npos)
      << run.err;
  const auto list = sandbox.sortie({"list"});
  EXPECT_EQ(list.out.find("a/b"), std::string::npos) << list.out;
}

// The run options parser also reads what users type, whose mistakes exit 2; a plugin's
// malformed declaration is the plugin's failure, exit 3, naming it.
TEST(CliPlugins, MalformedRunOptionsAreThePluginsError) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_bad_run_options", "fixture_sched");
  const std::string dir = sandbox.root() + "/fixtures";
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"run", "-s", "fixture_sched", "--", "true"},
        std::vector<std::string>{"runopts", "fixture_sched"}}) {
    std::vector<std::string> args{"--plugin-dir", dir};
    args.insert(args.end(), command.begin(), command.end());
    const auto result = sandbox.sortie(args);
    EXPECT_EQ(result.exit_code, 3) << result.err;
    EXPECT_TRUE(std::regex_search(
        result.err, std::regex("scheduler 'fixture_sched' \\(plugin fixture_bad_run_options, "
                               ".*\\): run_options returned an invalid payload: .*type.*complex.*"
                               "this is a bug in the plugin")))
        << result.err;
  }
}

// `plugins list` shows the manifest's version and `plugins show` the library's: doctor fails a
// plugin whose two differ (the README's minimal example once said 0.0.0 and 1.0.0).
TEST(CliPlugins, DoctorFailsAManifestVersionTheLibraryDoesNotSay) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_good", "fixture_sched", "0.0.0");
  const std::string dir = sandbox.root() + "/fixtures";
  const auto doctor = sandbox.sortie({"--plugin-dir", dir, "plugins", "doctor", "fixture_good"});
  EXPECT_EQ(doctor.exit_code, 3) << doctor.out << doctor.err;
  EXPECT_TRUE(std::regex_search(
      doctor.out, std::regex("FAILED +version: the manifest .*/fixture_good.json says version "
                             "'0.0.0', the library's SORTIE_PLUGIN\\('fixture_good', '1.2.3'\\)")))
      << doctor.out;
  write_fixture_manifest(sandbox, "fixture_good", "fixture_sched");
  EXPECT_EQ(sandbox.sortie({"--plugin-dir", dir, "plugins", "doctor", "fixture_good"}).exit_code,
            0);
}

// `plugins list` shows the manifest's name and `plugins show` and error messages the library's:
// doctor fails a plugin whose two differ (in-tree manifests once said sortie_local, the library
// local).
TEST(CliPlugins, DoctorFailsAManifestNameTheLibraryDoesNotSay) {
  CliSandbox sandbox;
  sandbox.write_file("fixtures/renamed.json",
                     R"({"file_format_version": "1.0", "plugin": {"name": "renamed", )"
                     R"("version": "1.2.3", "library": ")" +
                         fixture_dir() +
                         R"(/lib/libfixture_good.so", )"
                         R"("abi": {"min": "1.0", "max": "1.0"}},
 "provides": [{"group": "sortie.schedulers", "name": "fixture_sched"}]})");
  const std::string dir = sandbox.root() + "/fixtures";
  const auto doctor = sandbox.sortie({"--plugin-dir", dir, "plugins", "doctor", "renamed"});
  EXPECT_EQ(doctor.exit_code, 3) << doctor.out << doctor.err;
  EXPECT_TRUE(std::regex_search(
      doctor.out, std::regex("FAILED +name: the manifest .*/renamed.json says name 'renamed', "
                             "the library's SORTIE_PLUGIN\\('fixture_good', '1.2.3'\\)")))
      << doctor.out;
}

// Every installed manifest names its library's plugin: doctor passes them all.
TEST(CliPlugins, DoctorPassesTheInstalledPlugins) {
  CliSandbox sandbox;
  const auto doctor = sandbox.sortie({"plugins", "doctor"});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
  EXPECT_EQ(doctor.out.find("FAILED"), std::string::npos) << doctor.out;
}

TEST(CliPlugins, PluginProgressShowsUnlessQuiet) {
  CliSandbox sandbox;
  write_fixture_manifest(sandbox, "fixture_good", "fixture_sched");
  const std::string dir = sandbox.root() + "/fixtures";
  // The fixture logs at INFO when its scheduler is created, as a pull or build would report.
  const auto loud = sandbox.sortie({"--plugin-dir", dir, "runopts", "fixture_sched"});
  EXPECT_EQ(loud.exit_code, 0) << loud.err;
  EXPECT_NE(loud.err.find("sortie: plugin fixture_good: created with "), std::string::npos)
      << loud.err;
  const auto quiet = sandbox.sortie({"--plugin-dir", dir, "--quiet", "runopts", "fixture_sched"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("created with"), std::string::npos) << quiet.err;
  EXPECT_EQ(quiet.out, loud.out);
}

TEST(CliPlugins, InterruptReachesAnIsolatedWait) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie_interrupted(
      {"--isolate-plugins", "run", "-s", "local_cwd", "--wait", "--", "sleep", "1000"}, SIGINT,
      [&](const std::string& out) {
        const std::string handle = out.substr(0, out.find('\n'));
        return !handle.empty() &&
               json_string_member(sandbox.sortie({"status", handle, "--json"}).out, "state") ==
                   "RUNNING";
      });
  EXPECT_EQ(run.exit_code, 130) << run.err;
  const std::string handle = run.out.substr(0, run.out.find('\n'));
  EXPECT_EQ(json_string_member(sandbox.sortie({"status", handle, "--json"}).out, "state"),
            "CANCELLED");
}

TEST(CliPlugins, DoctorReportsEachFixtureWithItsError) {
  CliSandbox sandbox;
  const std::map<std::string, std::string> env{
      {"SORTIE_PLUGIN_PATH", fixture_dir() + "/plugins.d"}};
  const auto doctor = sandbox.sortie(
      {"--plugin-timeout", "0.5", "plugins", "doctor", "fixture_good",
       "fixture_raw_segfault_in_negotiate", "fixture_raw_abort_in_negotiate",
       "fixture_raw_exit_in_negotiate", "fixture_raw_hang_in_negotiate",
       "fixture_raw_stdout_in_negotiate", "fixture_wrong_schema", "fixture_missing_component"},
      env);
  EXPECT_EQ(doctor.exit_code, 3) << doctor.err;
  const auto expect_line = [&](const std::string& pattern) {
    EXPECT_TRUE(std::regex_search(doctor.out, std::regex(pattern)))
        << "missing: " << pattern << "\nin:\n"
        << doctor.out;
  };
  expect_line(
      "(^|\n)ok +fixture_good \\(.*\n  ok +library\n  ok +sortie.schedulers:fixture_sched\n");
  expect_line(
      "FAILED +library: plugin 'fixture_raw_segfault_in_negotiate' \\(.*\\): the plugin's "
      "process \\(pid [0-9]+\\) died of SIGSEGV \\(Segmentation fault\\) during loading");
  expect_line("FAILED +library: plugin 'fixture_raw_abort_in_negotiate' .* died of SIGABRT");
  expect_line(
      "FAILED +library: plugin 'fixture_raw_exit_in_negotiate' .* exited with status 3 "
      "during loading .*; a plugin must never call exit");
  expect_line(
      "FAILED +library: plugin 'fixture_raw_hang_in_negotiate' .* did not answer loading "
      "\\(dlopen and sortie_plugin_negotiate\\) within 0.5 s");
  expect_line(
      "FAILED +library: plugin 'fixture_raw_stdout_in_negotiate' .* wrote to stdout "
      "during loading \\(dlopen and sortie_plugin_negotiate\\): 'raw fixture says hello on "
      "stdout\\\\n'");
  expect_line(
      "FAILED +sortie.schedulers:fixture_sched: scheduler 'fixture_sched' \\(plugin "
      "fixture_wrong_schema, .*\\): run_options returned an invalid payload");
  expect_line(
      "FAILED +library: plugin 'fixture_missing_component' .* the manifest promises "
      "scheduler 'ghost'");
  expect_line("\n8 plugin\\(s\\) checked: some FAILED");
  // Nothing the plugins printed reached sortie's own output.
  EXPECT_EQ(doctor.out.find("raw fixture says hello on stdout\n"), std::string::npos);

  const auto json = sandbox.sortie(
      {"plugins", "doctor", "--json", "fixture_good", "fixture_raw_exit_in_negotiate"}, env);
  EXPECT_EQ(json.exit_code, 3) << json.err;
  rapidjson::Document document;
  document.Parse(json.out.c_str());
  ASSERT_TRUE(document.IsObject()) << json.out;
  EXPECT_STREQ(document["schema"].GetString(), "sortie.cli.plugin_doctor/1");
  EXPECT_FALSE(document["ok"].GetBool());
  const auto& plugins = document["plugins"];
  ASSERT_EQ(plugins.Size(), 2u) << json.out;
  for (const auto& plugin : plugins.GetArray()) {
    const std::string name = plugin["plugin"].GetString();
    EXPECT_EQ(plugin["ok"].GetBool(), name == "fixture_good") << json.out;
    if (name == "fixture_raw_exit_in_negotiate") {
      EXPECT_NE(std::string(plugin["checks"][0]["error"].GetString()).find("exited with status 3"),
                std::string::npos);
    }
  }
}

TEST(CliPlugins, DoctorPassesTheShippedLocalPlugin) {
  CliSandbox sandbox;
  const auto doctor = sandbox.sortie({"plugins", "doctor", "local_cwd"});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
  for (const char* line : {"ok     sortie_local (", "  ok      sortie.schedulers:local_cwd\n",
                           "  ok      sortie.image_providers:dir\n"}) {
    EXPECT_NE(doctor.out.find(line), std::string::npos) << line << " in " << doctor.out;
  }
  const auto unknown = sandbox.sortie({"plugins", "doctor", "nosuch"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("no plugin or plugin component named 'nosuch'"), std::string::npos)
      << unknown.err;
}

TEST(CliPlugins, IsolationSettingsAreValidated) {
  CliSandbox sandbox;
  const auto bad_flag = sandbox.sortie({"--plugin-timeout", "soon", "plugins", "list"});
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_NE(bad_flag.err.find("--plugin-timeout: 'soon' is not a number of seconds"),
            std::string::npos)
      << bad_flag.err;
  const auto bad_env = sandbox.sortie({"plugins", "list"}, {{"SORTIE_ISOLATE_PLUGINS", "maybe"}});
  EXPECT_EQ(bad_env.exit_code, 2);
  EXPECT_NE(bad_env.err.find("SORTIE_ISOLATE_PLUGINS: 'maybe' is neither 1/true nor 0/false"),
            std::string::npos)
      << bad_env.err;
}

}  // namespace
}  // namespace sortie::testing
