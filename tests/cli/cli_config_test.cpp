// .sortieconfig and TorchX's .torchxconfig through the real binary: what they set reaches the app,
// in the documented precedence, and what nothing reads (a misspelt key or section, an unknown
// scheduler) is an error naming FILE:LINE with the right spelling, wherever the file was found
// (working directory, $HOME, $SORTIE_CONFIG, $TORCHXCONFIG).
#include <gtest/gtest.h>

#include <string>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

// `sortie run ARGS` with `config` as ./.sortieconfig.
CommandResult run_with_config(const CliSandbox& sandbox, const std::string& config,
                              const std::vector<std::string>& args) {
  sandbox.write_file("cwd/.sortieconfig", config);
  std::vector<std::string> command{"run"};
  command.insert(command.end(), args.begin(), args.end());
  return sandbox.sortie(command);
}

TEST(CliConfig, SettingsReachTheApp) {
  CliSandbox sandbox;
  const auto run = run_with_config(sandbox,
                                   "[cli:run]\nscheduler = local_cwd\n"
                                   "[local_cwd]\ncancel_grace_period = 3\n"
                                   "[component:utils.echo]\nmsg = from config\n",
                                   {"--dryrun", "utils.echo"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"args\":[\"from config\"]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("local_cwd app"), std::string::npos) << run.out;
}

TEST(CliConfig, MisspeltRunKeyNamesFileLineAndTheKey) {
  CliSandbox sandbox;
  const auto run =
      run_with_config(sandbox, "# defaults\n[cli:run]\nschedular = local_cwd\n", {"--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("/cwd/.sortieconfig:3: [cli:run] has no key 'schedular' (did you mean "
                         "'scheduler'?)"),
            std::string::npos)
      << run.err;
}

TEST(CliConfig, MisspeltSectionNamesFileLineAndTheScheduler) {
  CliSandbox sandbox;
  const auto run = run_with_config(sandbox, "[lokal_cwd]\nlog_dir = /tmp\n", {"--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(".sortieconfig:1: no section [lokal_cwd] is read (did you mean "
                         "'local_cwd'?)"),
            std::string::npos)
      << run.err;
}

TEST(CliConfig, SectionOfAnUnknownComponentIsRefused) {
  CliSandbox sandbox;
  const auto run = run_with_config(sandbox, "[component:utils.ecko]\nmsg = hi\n", {"--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("[component:utils.ecko]"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("'component:utils.echo'"), std::string::npos) << run.err;
}

TEST(CliConfig, UnknownSchedulerValueNamesFileLine) {
  CliSandbox sandbox;
  const auto run = run_with_config(sandbox, "[cli:run]\n\nscheduler = local_cdw\n", {"--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(".sortieconfig:3: [cli:run] scheduler = local_cdw: unknown scheduler "
                         "'local_cdw' (did you mean 'local_cwd'?)"),
            std::string::npos)
      << run.err;
}

TEST(CliConfig, MisspeltRunOptionNamesFileLine) {
  CliSandbox sandbox;
  const auto run = run_with_config(sandbox, "[local_cwd]\nprepend_cdw = true\n",
                                   {"-s", "local_cwd", "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(".sortieconfig:2"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("did you mean 'prepend_cwd'"), std::string::npos) << run.err;
}

TEST(CliConfig, MisspeltComponentParameterNamesFileLine) {
  CliSandbox sandbox;
  const auto run = run_with_config(sandbox, "[component:utils.echo]\nmgs = hi\n",
                                   {"-s", "local_cwd", "--dryrun", "utils.echo"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(".sortieconfig:2: [component:utils.echo] mgs: component utils.echo has "
                         "no parameter 'mgs' (did you mean 'msg'?)"),
            std::string::npos)
      << run.err;
}

TEST(CliConfig, TyposInTheHomeAndExplicitFilesNameThoseFiles) {
  CliSandbox sandbox;
  const std::string home_file =
      sandbox.write_file("home/.sortieconfig", "[cli:run]\nshceduler = x\n");
  const auto home = sandbox.sortie({"run", "--", "true"});
  EXPECT_EQ(home.exit_code, 2) << home.err;
  EXPECT_NE(home.err.find(home_file + ":2"), std::string::npos) << home.err;

  const std::string explicit_file = sandbox.write_file("elsewhere.ini", "[locl_cwd]\n");
  const auto chosen = sandbox.sortie({"run", "--", "true"}, {{"SORTIE_CONFIG", explicit_file}});
  EXPECT_EQ(chosen.exit_code, 2) << chosen.err;
  EXPECT_NE(chosen.err.find(explicit_file + ":1"), std::string::npos) << chosen.err;
}

// Issue 35: a .torchxconfig was ignored silently. Its three kinds of section are read, in
// TorchX's INI dialect (KEY: VALUE; None leaves a key unset, so this log_dir, which an untrusted
// file may not set, is not refused).
TEST(CliConfig, TorchxConfigSectionsReachTheApp) {
  CliSandbox sandbox;
  sandbox.write_file("cwd/.torchxconfig",
                     "[cli:run]\nscheduler = local_dir\ncomponent = utils.echo\n"
                     "[local_dir]\ncancel_grace_period: 7\nlog_dir = None\n"
                     "[component:utils.echo]\nmsg = from torchxconfig\nimage: " +
                         sandbox.root() + "\n");
  const auto run = sandbox.sortie({"run", "--dryrun"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"args\":[\"from torchxconfig\"]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nlocal_dir app "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("(cancel grace period 7.000000 s)"), std::string::npos) << run.out;
}

// The command line, then .sortieconfig, then .torchxconfig (~/ before ./, as TorchX reads them;
// $TORCHXCONFIG alone when set) (docs/config-trust.md TRUST-1).
TEST(CliConfig, CommandLineThenSortieconfigThenTorchxconfig) {
  CliSandbox sandbox;
  sandbox.write_file("cwd/.sortieconfig", "[cli:run]\nscheduler = local_cwd\n");
  sandbox.write_file("cwd/.torchxconfig",
                     "[cli:run]\nscheduler = local_dir\n"
                     "[component:utils.echo]\nmsg = torchx cwd\nimage = " +
                         sandbox.root() + "\n");
  sandbox.write_file("home/.torchxconfig", "[component:utils.echo]\nmsg = torchx home\n");
  const auto configured = sandbox.sortie({"run", "--dryrun", "utils.echo"});
  ASSERT_EQ(configured.exit_code, 0) << configured.err;
  EXPECT_NE(configured.out.find("\nlocal_cwd app "), std::string::npos) << configured.out;
  EXPECT_NE(configured.out.find("\"args\":[\"torchx home\"]"), std::string::npos) << configured.out;

  const auto typed =
      sandbox.sortie({"run", "--dryrun", "-s", "local_dir", "utils.echo", "--msg", "typed"});
  ASSERT_EQ(typed.exit_code, 0) << typed.err;
  EXPECT_NE(typed.out.find("\nlocal_dir app "), std::string::npos) << typed.out;
  EXPECT_NE(typed.out.find("\"args\":[\"typed\"]"), std::string::npos) << typed.out;

  const std::string chosen =
      sandbox.write_file("chosen.ini", "[component:utils.echo]\nmsg = chosen\n");
  const auto only_chosen =
      sandbox.sortie({"run", "--dryrun", "utils.echo"}, {{"TORCHXCONFIG", chosen}});
  ASSERT_EQ(only_chosen.exit_code, 0) << only_chosen.err;
  EXPECT_NE(only_chosen.out.find("\"args\":[\"chosen\"]"), std::string::npos) << only_chosen.out;
  const auto missing = sandbox.sortie({"run", "--dryrun", "utils.echo"},
                                      {{"TORCHXCONFIG", sandbox.root() + "/missing.ini"}});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("TORCHXCONFIG names '"), std::string::npos) << missing.err;
}

// A cloned repository's .torchxconfig is untrusted as a .sortieconfig is, and what sortie does
// not read is refused naming FILE:LINE, never skipped as TorchX skips it.
TEST(CliConfig, TorchxConfigIsRefusedLoudlyWhereNotRead) {
  CliSandbox sandbox;
  const std::string file = sandbox.cwd() + "/.torchxconfig";
  sandbox.write_file("cwd/.torchxconfig",
                     "[local_docker]\nprivileged = true\n[local_cwd]\nprepend_cwd = true\n");
  const auto privileged = sandbox.sortie({"run", "-s", "local_docker", "--dryrun", "--", "true"});
  EXPECT_EQ(privileged.exit_code, 2) << privileged.err;
  EXPECT_NE(privileged.err.find(file + ":2: run option 'privileged' of scheduler 'local_docker'"),
            std::string::npos)
      << privileged.err;
  EXPECT_NE(privileged.err.find("is not read from a .torchxconfig found in the working directory"),
            std::string::npos)
      << privileged.err;
  EXPECT_NE(privileged.err.find("`sortie config trust " + file + "`"), std::string::npos)
      << privileged.err;
  const auto prepend = sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "--", "true"});
  EXPECT_EQ(prepend.exit_code, 2) << prepend.err;
  EXPECT_NE(prepend.err.find(file + ":4: run option 'prepend_cwd'"), std::string::npos)
      << prepend.err;
  ASSERT_EQ(sandbox.sortie({"config", "trust", ".torchxconfig"}).exit_code, 0);
  const auto trusted = sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "--", "true"});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.err;

  sandbox.write_file("train.py", "def main(): pass\n");
  sandbox.write_file("cwd/.torchxconfig", "[cli:run]\ncomponent = ../train.py:main\n");
  const auto component_file = sandbox.sortie({"run", "--dryrun"});
  EXPECT_EQ(component_file.exit_code, 2) << component_file.err;
  EXPECT_NE(component_file.err.find(file + ":2: [cli:run] component = ../train.py:main names a "
                                           "Python file that would run here"),
            std::string::npos)
      << component_file.err;

  sandbox.write_file("cwd/.torchxconfig", "[cli:run]\nworkspace = file://.\n");
  const auto workspace = sandbox.sortie({"run", "--dryrun", "--", "true"});
  EXPECT_EQ(workspace.exit_code, 2) << workspace.err;
  EXPECT_NE(workspace.err.find(file + ":2: [cli:run] has no key 'workspace'"), std::string::npos)
      << workspace.err;

  sandbox.write_file("cwd/.torchxconfig", "[aws_batch]\nqueue = q\n");
  const auto scheduler = sandbox.sortie({"run", "--dryrun", "--", "true"});
  EXPECT_EQ(scheduler.exit_code, 2) << scheduler.err;
  EXPECT_NE(scheduler.err.find(file + ":1: no section [aws_batch] is read"), std::string::npos)
      << scheduler.err;
}

}  // namespace
}  // namespace sortie::testing
