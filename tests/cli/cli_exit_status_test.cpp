// The exit status table of docs/exit-status.md, one test per row and cause, each through the
// real binary: 0 success; 1 the app failed or was cancelled, or the handle is unknown; 2 what
// the user typed or wrote is wrong; 3 a plugin or its backend failed. Rows tested elsewhere: a
// bad spec field (2) is CliErrors.MalformedSpecNamesFileLineAndField and
// CliErrors.UnknownSpecKeySuggestsTheRightOne; interrupted (130) is
// CliRun.InterruptedWaitCancelsTheAppAndLeavesNothingRunning (SIGINT) and
// CliLifecycle.SigtermToAWaitingRunCancelsTheApp (SIGTERM); a rerun of a unit another command
// is rerunning (3) is, in CliExperimentsRerunTest,
// ConcurrentRerunsOfOneUnitRunItOnceAndRefuseTheOtherByName.
#include <gtest/gtest.h>

#include <string>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

// A manifest whose library does not exist (a plugin uninstalled but for its manifest).
const std::string kMissingLibraryDir =
    std::string(SORTIE_TEST_SOURCE_DIR) + "/fixtures/missing_library";

// A successful app's handle (role "true", one replica).
std::string finished_app(const CliSandbox& sandbox) {
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "true"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return first_line(run.out);
}

TEST(CliExitStatus, SuccessIsZero) {
  CliSandbox sandbox;
  EXPECT_EQ(sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "true"}).exit_code, 0);
}

TEST(CliExitStatus, FailedAppIsOne) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "false"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("FAILED"), std::string::npos) << run.err;
}

TEST(CliExitStatus, AppCancelledFromAnotherShellIsOne) {
  CliSandbox sandbox;
  int cancel_status = -1;
  // Signal 0 sends nothing: the waiting run ends on its own once the other shell cancelled.
  const auto run = sandbox.sortie_interrupted(
      {"run", "-s", "local_cwd", "--wait", "--", "sleep", "1000"}, 0, [&](const std::string& out) {
        if (out.find('\n') == std::string::npos) return false;
        cancel_status = sandbox.sortie({"cancel", first_line(out)}).exit_code;
        return true;
      });
  EXPECT_EQ(cancel_status, 0);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("CANCELLED"), std::string::npos) << run.err;
}

TEST(CliExitStatus, UnknownHandleIsOne) {
  CliSandbox sandbox;
  for (const char* command : {"status", "describe", "log", "metrics", "cancel"}) {
    const auto result = sandbox.sortie({command, "local_cwd://default/nope-123"});
    EXPECT_EQ(result.exit_code, 1) << command << ": " << result.err;
    EXPECT_NE(result.err.find("unknown"), std::string::npos) << result.err;
  }
}

TEST(CliExitStatus, UnknownExperimentIsOne) {
  CliSandbox sandbox;
  const auto show = sandbox.sortie({"experiments", "show", "42"});
  EXPECT_EQ(show.exit_code, 1) << show.err;
  EXPECT_NE(show.err.find("no experiment 42"), std::string::npos) << show.err;
}

TEST(CliExitStatus, UnknownSchedulerIsTwo) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cdw", "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("did you mean 'local_cwd'"), std::string::npos) << run.err;
}

TEST(CliExitStatus, UnknownComponentIsTwo) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "utils.ecko"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("unknown component 'utils.ecko'"), std::string::npos) << run.err;
}

TEST(CliExitStatus, UnknownImageProviderIsTwo) {
  CliSandbox sandbox;
  const auto run =
      sandbox.sortie({"run", "-s", "local_cwd", "-cfg", "image_provider=nope", "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("image_provider=nope"), std::string::npos) << run.err;
}

TEST(CliExitStatus, UnknownRoleOrReplicaIsTwo) {
  CliSandbox sandbox;
  const std::string handle = finished_app(sandbox);
  const auto role = sandbox.sortie({"log", handle + "/nope"});
  EXPECT_EQ(role.exit_code, 2) << role.err;
  EXPECT_NE(role.err.find("nope"), std::string::npos) << role.err;
  const auto replica = sandbox.sortie({"log", handle + "/true/7"});
  EXPECT_EQ(replica.exit_code, 2) << replica.err;
  EXPECT_NE(replica.err.find("7"), std::string::npos) << replica.err;
}

TEST(CliExitStatus, AMeasurementPatternThatIsNotValidIsTwo) {
  CliSandbox sandbox;
  const std::string spec = sandbox.write_file("spec.yaml", R"(name: bad
roles:
  - {name: trainer, entrypoint: "true", env: {SORTIE_METRICS_PATTERN: "step=("}}
)");
  const auto run = sandbox.sortie({"run", "--wait", spec});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = sandbox.sortie({"metrics", run.out.substr(0, run.out.find('\n'))});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("role 'trainer': SORTIE_METRICS_PATTERN 'step=('"), std::string::npos)
      << result.err;
}

TEST(CliExitStatus, UnknownOptionIsTwo) {
  CliSandbox sandbox;
  EXPECT_EQ(sandbox.sortie({"run", "--frobnicate", "--", "true"}).exit_code, 2);
  EXPECT_EQ(sandbox.sortie({"list", "--frobnicate"}).exit_code, 2);
}

TEST(CliExitStatus, BadConfigKeyIsTwo) {
  CliSandbox sandbox;
  sandbox.write_file("cwd/.sortieconfig", "[cli:run]\nschedular = local_cwd\n");
  const auto run = sandbox.sortie({"run", "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(".sortieconfig:2"), std::string::npos) << run.err;
}

TEST(CliExitStatus, ManifestWhoseLibraryIsMissingIsThree) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "ghost", "--", "true"},
                                  {{"SORTIE_PLUGIN_PATH", kMissingLibraryDir}});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("/nonexistent/libsortie_ghost.so does not exist"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(kMissingLibraryDir + "/ghost.json"), std::string::npos) << run.err;
}

TEST(CliExitStatus, PluginThatAbortsIsThree) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"--isolate-plugins", "run", "-s", "bomb", "--", "true"},
                                  {{"SORTIE_PLUGIN_PATH", ABORTING_PLUGIN_DIR}});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("bomb"), std::string::npos) << run.err;
}

TEST(CliExitStatus, StatusOfARunningAppWhosePluginIsGoneIsThree) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--", "sleep", "1000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);
  sandbox.write_file("no-plugins/README", "no manifests here");
  const std::string empty_dir = sandbox.root() + "/no-plugins";
  const auto status = sandbox.sortie({"--plugin-dir", empty_dir, "status", handle});
  EXPECT_EQ(status.exit_code, 3) << status.err;
  EXPECT_NE(status.out.find(handle), std::string::npos) << status.out;
  EXPECT_NE(status.err.find("its scheduler 'local_cwd' is not on the plugin search path"),
            std::string::npos)
      << status.err;
  const auto cancel = sandbox.sortie({"--plugin-dir", empty_dir, "cancel", handle});
  EXPECT_EQ(cancel.exit_code, 3) << cancel.err;
  EXPECT_EQ(sandbox.sortie({"cancel", handle, "--wait"}).exit_code, 0);
  // Once terminal, the record is final: showing it is a success even without the plugin.
  const auto final_status = sandbox.sortie({"--plugin-dir", empty_dir, "status", handle});
  EXPECT_EQ(final_status.exit_code, 0) << final_status.err;
  EXPECT_NE(final_status.out.find("CANCELLED"), std::string::npos) << final_status.out;
}

}  // namespace
}  // namespace sortie::testing
