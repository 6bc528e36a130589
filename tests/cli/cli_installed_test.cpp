// The installed `sortie` (the installed_prefix fixture) started as users start it: by name through
// PATH, through a symlink in another directory, by a relative path; always from a working
// directory outside the source and build trees. Each way must find the plugins, the plugin
// helper and the local supervisor of its prefix, and nothing from the working directory.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kInstalledSortie = fs::path(SORTIE_TEST_PREFIX) / "bin" / "sortie";

// A shell script that prints its job name and args, then waits for a "release" file in its
// working directory that never comes (so its experiment is running until cancelled).
std::string write_waiting_job(const CliSandbox& sandbox) {
  const std::string script = sandbox.write_file("cwd/job.sh", R"(#!/bin/sh
echo "$SORTIE_JOB_NAME $*"
while [ ! -e release ]; do sleep 0.05; done
)");
  ::chmod(script.c_str(), 0755);
  return script;
}

std::string write_sweep_experiment(const CliSandbox& sandbox) {
  write_waiting_job(sandbox);
  return sandbox.write_file("cwd/sweep.yaml", R"(title: installed sweep
executables: {trainer: {binary: ./job.sh}}
job: {executable: trainer, name: train}
sweep: {product: {lr: [0.1, 0.01]}}
)");
}

// From now on `sortie` is <sandbox>/bin/sortie -> <prefix>/bin/sortie, only that directory on PATH.
void invoke_through_symlink(CliSandbox& sandbox) {
  const fs::path link_dir = fs::path(sandbox.root()) / "bin";
  fs::create_directories(link_dir);
  fs::create_symlink(kInstalledSortie, link_dir / "sortie");
  sandbox.invoke_as({"sortie", link_dir.string()});
}

// Polls `sortie log HANDLE` until it prints `text` (at most ~10 s); returns the last output.
std::string wait_log(const CliSandbox& sandbox, const std::string& handle,
                     const std::string& text) {
  std::string log;
  for (int i = 0; i < 200 && log.find(text) == std::string::npos; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    log = sandbox.sortie({"log", handle}).out;
  }
  return log;
}

// launch a file whose relative binary resolves from the experiment, then list, show and cancel
// it from "another shell".
void expect_experiment_lifecycle(const CliSandbox& sandbox) {
  const std::string file = write_sweep_experiment(sandbox);
  const CommandResult launched = sandbox.sortie({"launch", file});
  ASSERT_EQ(launched.exit_code, 0) << launched.out << launched.err;
  const std::string id = experiment_id(launched.out);
  ASSERT_FALSE(id.empty()) << launched.out;
  const auto jobs = launched_jobs(launched.out);
  ASSERT_EQ(jobs.size(), 2u) << launched.out;

  const CommandResult listed = sandbox.sortie({"experiments", "list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("installed sweep"), std::string::npos) << listed.out;

  const CommandResult shown = sandbox.sortie({"experiments", "show", id});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(std::regex_search(shown.out, std::regex("work unit 2: (PENDING|RUNNING)")))
      << shown.out << shown.err;

  const std::string log = wait_log(sandbox, jobs[0].second, id + "_1_train --lr=0.1");
  EXPECT_NE(log.find(id + "_1_train --lr=0.1"), std::string::npos) << log;

  const CommandResult cancelled = sandbox.sortie({"experiments", "cancel", id});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_NE(cancelled.out.find("experiment " + id + " CANCELLED"), std::string::npos)
      << cancelled.out << cancelled.err;
}

// run, status, log and cancel of one app.
void expect_app_lifecycle(const CliSandbox& sandbox) {
  const CommandResult run =
      sandbox.sortie({"run", "-s", "local_cwd", "--", "sh", "-c", "echo from-run; sleep 1000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);
  EXPECT_NE(wait_log(sandbox, handle, "from-run").find("from-run"), std::string::npos);

  const CommandResult status = sandbox.sortie({"status", handle, "--json"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(json_string_member(status.out, "state"), "RUNNING") << status.out;

  const CommandResult cancelled = sandbox.sortie({"cancel", handle});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_EQ(json_string_member(sandbox.wait_terminal(handle), "state"), "CANCELLED");
}

// The doctor loads the local plugin from the prefix's own library directory.
void expect_doctor_passes_the_prefix_plugin(const CliSandbox& sandbox) {
  const CommandResult doctor = sandbox.sortie({"plugins", "doctor", "local_cwd"});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find("ok     sortie_local (" + std::string(SORTIE_TEST_PREFIX) + "/"),
            std::string::npos)
      << doctor.out;
}

void expect_everything_works(const CliSandbox& sandbox) {
  expect_experiment_lifecycle(sandbox);
  expect_app_lifecycle(sandbox);
  expect_doctor_passes_the_prefix_plugin(sandbox);
}

TEST(CliInstalled, WorksByNameThroughPath) {
  CliSandbox sandbox;  // the default: `sortie` of <prefix>/bin on PATH
  expect_everything_works(sandbox);
}

TEST(CliInstalled, WorksThroughASymlinkInAnotherDirectory) {
  CliSandbox sandbox;
  invoke_through_symlink(sandbox);
  expect_everything_works(sandbox);
}

TEST(CliInstalled, WorksByARelativePath) {
  CliSandbox sandbox;
  const std::string relative = fs::relative(kInstalledSortie, sandbox.cwd()).string();
  ASSERT_EQ(relative.rfind("../", 0), 0u) << relative;
  // PATH holds no sortie, so only the relative path can start it.
  sandbox.invoke_as({relative, sandbox.root() + "/empty-bin"});
  expect_everything_works(sandbox);
}

// The CLI once took its install prefix from argv[0] ("sortie", made absolute against the working
// directory), so `launch` found no packager and `experiments show` no scheduler unless sortie
// was run by its absolute path.
TEST(CliInstalled, LaunchedByNameFromElsewhereFindsThePrefixPlugins) {
  CliSandbox sandbox;
  const std::string file = write_sweep_experiment(sandbox);
  const CommandResult launched = sandbox.sortie({"launch", file});
  EXPECT_EQ(launched.err.find("no plugin provides"), std::string::npos) << launched.err;
  ASSERT_EQ(launched.exit_code, 0) << launched.err;
  const std::string id = experiment_id(launched.out);
  const CommandResult cancelled = sandbox.sortie({"experiments", "cancel", id});
  EXPECT_EQ(cancelled.err.find("unknown scheduler"), std::string::npos) << cancelled.err;
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
}

// The helper that runs an isolated plugin is found in the prefix of the running sortie.
TEST(CliInstalled, IsolatedPluginsFindTheirHelper) {
  CliSandbox sandbox;
  invoke_through_symlink(sandbox);
  const CommandResult run = sandbox.sortie(
      {"--isolate-plugins", "run", "-s", "local_cwd", "--wait", "--log", "--", "echo", "isolated"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("isolated"), std::string::npos) << run.out << run.err;
  const CommandResult launched = sandbox.sortie({"launch", write_sweep_experiment(sandbox)},
                                                {{"SORTIE_ISOLATE_PLUGINS", "1"}});
  EXPECT_EQ(launched.exit_code, 0) << launched.err;
  const std::string id = experiment_id(launched.out);
  const CommandResult cancelled =
      sandbox.sortie({"experiments", "cancel", id}, {{"SORTIE_ISOLATE_PLUGINS", "1"}});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
}

}  // namespace
}  // namespace sortie::testing
