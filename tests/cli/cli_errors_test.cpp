// Bad input reaches the user as a clear error naming the file, line, field or option.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

TEST(CliErrors, MalformedSpecNamesFileLineAndField) {
  CliSandbox sandbox;
  const std::string spec = sandbox.write_file("cwd/bad.yaml", R"(name: bad
roles:
  - name: main
    entrypoint: echo
    num_replicas: two
)");
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--spec", spec});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("bad.yaml:5"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("num_replicas"), std::string::npos) << run.err;
}

TEST(CliErrors, UnknownSpecKeySuggestsTheRightOne) {
  CliSandbox sandbox;
  const std::string spec = sandbox.write_file("cwd/typo.yaml", R"(name: typo
roles:
  - name: main
    entrypont: echo
)");
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--spec", spec});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("typo.yaml:4"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("entrypoint"), std::string::npos) << run.err;
}

TEST(CliErrors, UnknownRunOptionNamesOptionAndScheduler) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "-cfg", "log_dri=/tmp", "--", "true"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("log_dri"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("local_cwd"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("log_dir"), std::string::npos) << run.err;
}

TEST(CliErrors, IllTypedRunOptionIsRefused) {
  CliSandbox sandbox;
  const auto run =
      sandbox.sortie({"run", "-s", "local_cwd", "-cfg", "prepend_cwd=maybe", "--", "true"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("prepend_cwd"), std::string::npos) << run.err;
}

TEST(CliErrors, MalformedConfigFileNamesItsLine) {
  CliSandbox sandbox;
  sandbox.write_file("cwd/.sortieconfig", "[local_cwd]\nlog_dir /tmp\n");
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--", "true"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(".sortieconfig:2"), std::string::npos) << run.err;
}

TEST(CliErrors, UnknownComponentFlagIsRefused) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "utils.echo", "--mgs", "hi"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--mgs"), std::string::npos) << run.err;
}

TEST(CliErrors, BadHandleShowsTheExpectedForm) {
  CliSandbox sandbox;
  const auto status = sandbox.sortie({"status", "not-a-handle"});
  EXPECT_EQ(status.exit_code, 2);
  EXPECT_NE(status.err.find("SCHEDULER://SESSION/APP_ID"), std::string::npos) << status.err;
}

TEST(CliErrors, UnknownAppIsExitOne) {
  CliSandbox sandbox;
  const auto status = sandbox.sortie({"status", "local_cwd://default/nope-123"});
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_NE(status.err.find("unknown"), std::string::npos) << status.err;
}

TEST(CliErrors, UnknownCommandAndGlobalOption) {
  CliSandbox sandbox;
  EXPECT_EQ(sandbox.sortie({"launch-rockets"}).exit_code, 2);
  EXPECT_EQ(sandbox.sortie({"--frobnicate", "list"}).exit_code, 2);
  const auto help = sandbox.sortie({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: sortie"), std::string::npos);
}

// An error or warning on stderr quotes what the user gave (a key of a file, a handle, an option,
// a manifest's file name) with its control characters escaped, as human output on stdout does:
// ESC[2J cannot clear the screen, nor a CR or U+202E rewrite the line (issue 26 A8).
TEST(CliErrors, ControlCharactersInAnErrorAreShownEscaped) {
  CliSandbox sandbox;
  const std::string forged = "x\x1b[2Jy\rz\u202eend";
  const std::string shown = R"(x\x1b[2Jy\x0dz\u202eend)";
  const auto expect_escaped = [&](const CommandResult& result, int exit_code) {
    EXPECT_EQ(result.exit_code, exit_code) << result.err;
    EXPECT_NE(result.err.find(shown), std::string::npos) << result.err;
    for (const std::string raw : {"\x1b", "\r", "\u202e"}) {
      EXPECT_EQ(result.err.find(raw), std::string::npos) << result.err;
    }
  };
  const std::string file = sandbox.write_file("cwd/forged.yaml", R"(executables:
  trainer: {binary: ./job.sh}
job: {executable: trainer, name: train}
"x\e[2Jy\rz\u202Eend": 1
)");
  expect_escaped(sandbox.sortie({"launch", file}), 2);
  expect_escaped(sandbox.sortie({"status", "local_cwd://default/" + forged}), 2);
  expect_escaped(sandbox.sortie({"--" + forged, "list"}), 2);

  // A manifest's file name, in the warning on stderr and in plugins list's table on stdout.
  sandbox.write_file("extra/" + forged + ".json", "{");
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}};
  expect_escaped(sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "--", "true"}, env), 0);
  const CommandResult listed = sandbox.sortie({"plugins", "list"}, env);
  EXPECT_NE(listed.out.find(shown + ".json: invalid JSON"), std::string::npos) << listed.out;
  EXPECT_EQ(listed.out.find("\x1b"), std::string::npos) << listed.out;
}

}  // namespace
}  // namespace sortie::testing
