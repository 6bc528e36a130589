// Issue 16, through the real binary: a .sortieconfig in the working directory cannot run
// programs or send credentials away unless trusted (F1), credentials never go over plain http to
// another machine, and what sortie keeps or prints about an app stays the user's (F8). Plugin
// files others could replace: cli_plugins_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

namespace fs = std::filesystem;

// GOOGLE_OAUTH_ACCESS_TOKEN would win over the command; the test wants the command's turn.
const std::map<std::string, std::string> kNoAccessToken = {{"GOOGLE_OAUTH_ACCESS_TOKEN", ""}};

mode_t mode_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return 07777;
  return info.st_mode & 0777;
}

TEST(CliTrust, ACommandInAnUntrustedWorkingDirectoryConfigIsNeverRun) {
  CliSandbox sandbox;
  const std::string marker = sandbox.root() + "/command-ran";
  sandbox.write_file("cwd/.sortieconfig",
                     "[vertex]\nproject = p\naccess_token_command = touch " + marker + "\n");
  const auto refused = sandbox.sortie({"run", "-s", "vertex", "--", "true"}, kNoAccessToken);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_FALSE(fs::exists(marker)) << "the working directory's config ran a command";
  EXPECT_NE(refused.err.find(sandbox.cwd() + "/.sortieconfig:3: run option 'access_token_command' "
                                             "of scheduler 'vertex' runs a program"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("sortie config trust " + sandbox.cwd() + "/.sortieconfig"),
            std::string::npos)
      << refused.err;

  // Trusted, the same file is read; edited afterwards, it is untrusted again.
  const auto trust = sandbox.sortie({"config", "trust"});
  ASSERT_EQ(trust.exit_code, 0) << trust.err;
  EXPECT_NE(trust.out.find("trusted " + sandbox.cwd() + "/.sortieconfig"), std::string::npos);
  EXPECT_EQ(mode_of(sandbox.root() + "/xdg-config/sortie/trusted-configs"), 0600u);
  const auto dryrun =
      sandbox.sortie({"run", "-s", "vertex", "--dryrun", "--image", "python:3.11", "--", "true"});
  EXPECT_EQ(dryrun.exit_code, 0) << dryrun.err;
  sandbox.write_file("cwd/.sortieconfig", "[vertex]\nproject = p\naccess_token_command = touch " +
                                              marker + "\n# edited\n");
  const auto edited = sandbox.sortie({"run", "-s", "vertex", "--", "true"}, kNoAccessToken);
  EXPECT_EQ(edited.exit_code, 2) << edited.err;
  EXPECT_FALSE(fs::exists(marker));
}

TEST(CliTrust, WhereCredentialsGoIsTheUsersChoiceOnly) {
  CliSandbox sandbox;
  sandbox.write_file("cwd/.sortieconfig", "[vertex]\nproject = p\nendpoint = https://evil.test\n");
  const auto endpoint =
      sandbox.sortie({"run", "-s", "vertex", "--dryrun", "--image", "python:3.11", "--", "true"});
  EXPECT_EQ(endpoint.exit_code, 2) << endpoint.err;
  EXPECT_NE(endpoint.err.find(".sortieconfig:3: run option 'endpoint'"), std::string::npos)
      << endpoint.err;

  sandbox.write_file("cwd/kc", "apiVersion: v1\nkind: Config\n");
  sandbox.write_file("cwd/.sortieconfig", "[kubernetes]\nkubeconfig = ./kc\n");
  const auto kubeconfig = sandbox.sortie({"run", "-s", "kubernetes", "--dryrun", "--", "true"});
  EXPECT_EQ(kubeconfig.exit_code, 2) << kubeconfig.err;
  EXPECT_NE(kubeconfig.err.find(".sortieconfig:2: run option 'kubeconfig' of scheduler "
                                "'kubernetes'"),
            std::string::npos)
      << kubeconfig.err;

  sandbox.write_file("cwd/.sortieconfig", "[local_docker]\ncopy_env = AWS_*\n");
  const auto copy_env = sandbox.sortie({"run", "-s", "local_docker", "--dryrun", "--", "true"});
  EXPECT_EQ(copy_env.exit_code, 2) << copy_env.err;
  EXPECT_NE(copy_env.err.find(".sortieconfig:2: run option 'copy_env'"), std::string::npos)
      << copy_env.err;

  // The user's own config may choose them.
  fs::remove(sandbox.cwd() + "/.sortieconfig");
  sandbox.write_file("home/.sortieconfig",
                     "[vertex]\nproject = p\nendpoint = http://127.0.0.1:9\n");
  const auto own =
      sandbox.sortie({"run", "-s", "vertex", "--dryrun", "--image", "python:3.11", "--", "true"});
  EXPECT_EQ(own.exit_code, 0) << own.err;
}

// Issue 26 A2: a FIFO named .sortieconfig, or given as a spec, experiment file or launch script,
// made the command wait for ever in open(). `timeout` ends a command that still would (124).
TEST(CliTrust, OnlyARegularFileIsReadAsConfigSpecExperimentOrScript) {
  CliSandbox sandbox;
  const std::string bounded =
      sandbox.write_file("bounded-sortie", "exec timeout 20 sortie \"$@\"\n");
  sandbox.invoke_as({"/bin/sh", Invocation{}.path_dir});
  const std::string config = sandbox.cwd() + "/.sortieconfig";
  ASSERT_EQ(::mkfifo(config.c_str(), 0600), 0);
  const auto run = sandbox.sortie({bounded, "run", "-s", "local_cwd", "--dryrun", "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("cannot read config file '" + config +
                         "': it is a FIFO, not a regular file; give the path of a file"),
            std::string::npos)
      << run.err;
  fs::remove(config);

  for (const char* name : {"exp.yaml", "spec.yaml", "train.py"}) {
    ASSERT_EQ(::mkfifo((sandbox.cwd() + "/" + name).c_str(), 0600), 0);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> refusals = {
      {{"launch", "exp.yaml"}, "cannot read experiment file 'exp.yaml': it is a FIFO"},
      {{"run", "--dryrun", "--spec", "spec.yaml"},
       "cannot read app spec 'spec.yaml': it is a FIFO"},
      {{"launch", "train.py"}, "cannot read launch script 'train.py': it is a FIFO"},
      {{"run", "--dryrun", "--spec", "."}, "cannot read app spec '.': it is a directory"},
  };
  for (const auto& [args, refusal] : refusals) {
    std::vector<std::string> command = {bounded};
    command.insert(command.end(), args.begin(), args.end());
    const auto refused = sandbox.sortie(command);
    EXPECT_EQ(refused.exit_code, 2) << args[0] << " " << args.back() << ": " << refused.err;
    EXPECT_NE(refused.err.find(refusal), std::string::npos) << refused.err;
  }
}

TEST(CliTrust, AnAccessTokenNeverGoesOverPlainHttpToAnotherMachine) {
  CliSandbox sandbox;
  const auto run = sandbox.sortie({"run", "-s", "vertex", "--dryrun", "-cfg",
                                   "project=p,endpoint=http://203.0.113.7", "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("run option 'endpoint' must be a URL starting with https://"),
            std::string::npos)
      << run.err;
}

TEST(CliHygiene, StateIsPrivateWhateverTheUmask) {
  CliSandbox sandbox;
  ::umask(022);
  const auto run = sandbox.sortie({"run", "--wait", "-s", "local_cwd", "--", "true"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string state = sandbox.root() + "/state";
  EXPECT_EQ(mode_of(state), 0700u);
  EXPECT_EQ(mode_of(state + "/schedulers/local_cwd"), 0700u);
  EXPECT_EQ(mode_of(state + "/sortie.db"), 0600u);
  int requests = 0;
  for (const auto& entry : fs::recursive_directory_iterator(state)) {
    if (entry.is_directory()) {
      EXPECT_EQ(mode_of(entry.path().string()) & 077, 0u) << entry.path();
    } else if (entry.is_regular_file()) {
      EXPECT_EQ(mode_of(entry.path().string()) & 077, 0u) << entry.path();
      requests += entry.path().filename() == "request.json" ? 1 : 0;
    }
  }
  EXPECT_EQ(requests, 1);
}

TEST(CliHygiene, SecretEnvValuesAreMaskedUnlessAskedFor) {
  CliSandbox sandbox;
  sandbox.write_file("cwd/spec.yaml",
                     "name: secretive\nroles:\n  - name: main\n    entrypoint: true\n"
                     "    env:\n      API_TOKEN: tok-9f8e7d6c\n      DB_PASSWORD: pw-1a2b3c4d\n"
                     "      PLAIN: visible-value\n");
  const auto masked = sandbox.sortie({"run", "--dryrun", "--spec", "spec.yaml"});
  ASSERT_EQ(masked.exit_code, 0) << masked.err;
  EXPECT_EQ(masked.out.find("tok-9f8e7d6c"), std::string::npos) << masked.out;
  EXPECT_EQ(masked.out.find("pw-1a2b3c4d"), std::string::npos) << masked.out;
  EXPECT_NE(masked.out.find("********"), std::string::npos) << masked.out;
  EXPECT_NE(masked.out.find("visible-value"), std::string::npos) << masked.out;
  const auto shown = sandbox.sortie({"run", "--dryrun", "--show-secrets", "--spec", "spec.yaml"});
  EXPECT_NE(shown.out.find("tok-9f8e7d6c"), std::string::npos) << shown.out;

  const auto run = sandbox.sortie({"run", "--wait", "--spec", "spec.yaml"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);
  const auto describe = sandbox.sortie({"describe", handle});
  EXPECT_EQ(describe.out.find("tok-9f8e7d6c"), std::string::npos) << describe.out;
  EXPECT_NE(describe.out.find("env API_TOKEN=********"), std::string::npos) << describe.out;
  const auto describe_json = sandbox.sortie({"describe", handle, "--json"});
  EXPECT_EQ(describe_json.out.find("pw-1a2b3c4d"), std::string::npos) << describe_json.out;
  const auto revealed = sandbox.sortie({"describe", handle, "--show-secrets"});
  EXPECT_NE(revealed.out.find("env API_TOKEN=tok-9f8e7d6c"), std::string::npos) << revealed.out;
}

}  // namespace
}  // namespace sortie::testing
