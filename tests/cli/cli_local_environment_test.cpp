// End-to-end: the environment local_cwd replicas receive, with and without the run option
// env_allow (docs/local-scheduler.md, "Environment"). A replica prints its environment.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

const std::map<std::string, std::string> kSubmitterEnv = {
    {"LISTED_VAR", "listed"}, {"NCCL_DEBUG", "INFO"}, {"UNLISTED_VAR", "secret"}};

std::string write_env_printing_spec(const CliSandbox& sandbox) {
  return sandbox.write_file("cwd/printenv.yaml", R"(name: printenv
roles:
  - name: show
    entrypoint: env
    env:
      ROLE_VAR: from-role
)");
}

// The app's log ("show/0 NAME=value" lines) after running it to completion.
std::string run_and_log(const CliSandbox& sandbox, const std::vector<std::string>& cfg) {
  std::vector<std::string> args = {"run", "-s", "local_cwd", "--wait"};
  args.insert(args.end(), cfg.begin(), cfg.end());
  args.insert(args.end(), {"--spec", write_env_printing_spec(sandbox)});
  const CommandResult run = sandbox.sortie(args, kSubmitterEnv);
  EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
  const CommandResult log = sandbox.sortie({"log", first_line(run.out)});
  EXPECT_EQ(log.exit_code, 0) << log.err;
  return log.out;
}

bool has_line(const std::string& log, const std::string& line) {
  return ("\n" + log).find("\n" + line + "\n") != std::string::npos;
}

TEST(CliLocalEnvironment, WithoutEnvAllowTheReplicaInheritsTheWholeEnvironment) {
  CliSandbox sandbox;
  const std::string log = run_and_log(sandbox, {});
  EXPECT_TRUE(has_line(log, "show/0 UNLISTED_VAR=secret")) << log;
  EXPECT_TRUE(has_line(log, "show/0 LISTED_VAR=listed")) << log;
  EXPECT_TRUE(has_line(log, "show/0 ROLE_VAR=from-role")) << log;
  EXPECT_TRUE(has_line(log, "show/0 HOME=" + sandbox.root() + "/home")) << log;
}

TEST(CliLocalEnvironment, EnvAllowPassesOnlyTheListedVariablesTheRolesEnvAndSortiesOwn) {
  CliSandbox sandbox;
  const std::string log = run_and_log(sandbox, {"-cfg", "env_allow=LISTED_VAR,NCCL_*"});
  EXPECT_TRUE(has_line(log, "show/0 LISTED_VAR=listed")) << log;
  EXPECT_TRUE(has_line(log, "show/0 NCCL_DEBUG=INFO")) << log;
  EXPECT_TRUE(has_line(log, "show/0 ROLE_VAR=from-role")) << log;
  EXPECT_TRUE(has_line(log, "show/0 SORTIE_REPLICA_ID=0")) << log;
  EXPECT_TRUE(has_line(log, "show/0 SORTIE_ROLE_NAME=show")) << log;
  EXPECT_EQ(log.find("UNLISTED_VAR"), std::string::npos) << log;
  EXPECT_EQ(log.find("HOME="), std::string::npos) << log;
  // PATH is not listed: the replica's PATH is the system default plus its cwd, not ours.
  EXPECT_TRUE(has_line(log, "show/0 PATH=/usr/local/bin:/usr/bin:/bin:" + sandbox.cwd())) << log;
}

TEST(CliLocalEnvironment, DryrunShowsTheAllowedEnvironment) {
  CliSandbox sandbox;
  const CommandResult dryrun =
      sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "-cfg", "env_allow=LISTED_VAR,PATH",
                      "--spec", write_env_printing_spec(sandbox)},
                     kSubmitterEnv);
  ASSERT_EQ(dryrun.exit_code, 0) << dryrun.err;
  EXPECT_NE(dryrun.out.find("environment: each replica gets only its env below"), std::string::npos)
      << dryrun.out;
  EXPECT_NE(dryrun.out.find("    LISTED_VAR=listed\n"), std::string::npos) << dryrun.out;
  EXPECT_NE(dryrun.out.find("    ROLE_VAR=from-role\n"), std::string::npos) << dryrun.out;
  EXPECT_EQ(dryrun.out.find("UNLISTED_VAR"), std::string::npos) << dryrun.out;
}

TEST(CliLocalEnvironment, AMalformedEntryIsRefusedWithStatusTwo) {
  CliSandbox sandbox;
  const CommandResult run = sandbox.sortie(
      {"run", "-s", "local_cwd", "--dryrun", "-cfg", "env_allow=NCCL_*_X", "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("run option 'env_allow': 'NCCL_*_X' is neither a variable name nor a "
                         "prefix ending in '*'"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace sortie::testing
