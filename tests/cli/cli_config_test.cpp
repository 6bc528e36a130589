// .sortieconfig through the real binary: what it sets reaches the app, and what nothing reads (a
// misspelt key or section, an unknown scheduler) is an error naming FILE:LINE with the right
// spelling, wherever the file was found (working directory, $HOME, $SORTIE_CONFIG).
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

}  // namespace
}  // namespace sortie::testing
