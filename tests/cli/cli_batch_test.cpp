// Issue 13: a failed batch submit (ABI-14 schedule_batch) leaves no app running unrecorded, in
// process and through the isolation helper alike, and a sortie that dies in the middle of one
// leaves records the next command settles. The scheduler is the host-test fixture built to
// break ABI-14's all or nothing (tests/plugin_host/fixtures/sdk_plugin.cpp), reached by a
// sweep on its executor as users launch one.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

size_t count_of(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

class CliBatchSandbox : public ::testing::Test {
 protected:
  // A plugin directory whose one manifest serves `fixture` as scheduler fixture_sched and as
  // the executor type `fixture` for processes; returns the options that select it (and
  // --isolate-plugins when the test's parameter says so).
  std::vector<std::string> plugin_options(const std::string& fixture, bool isolated) const {
    sandbox_.write_file("plugins/" + fixture + ".json", R"({"file_format_version": "1.0",
 "plugin": {"name": ")" + fixture + R"(", "version": "1.2.3",
            "library": ")" FIXTURE_LIBRARY_DIR "/lib" + fixture +
                                                            R"(.so",
            "abi": {"min": "1.1", "max": "1.1"}},
 "provides": [{"group": "sortie.schedulers", "name": "fixture_sched"},
              {"group": "sortie.executors", "name": "fixture.process",
               "executor": {"scheduler": "fixture_sched"}}]}
)");
    // The installed plugins too: the sweep's binary is packaged by the local packager.
    std::vector<std::string> options = {"--plugin-dir",
                                        std::string(SORTIE_TEST_PREFIX) + "/share/sortie/plugins.d",
                                        "--plugin-dir", sandbox_.root() + "/plugins"};
    if (isolated) options.push_back("--isolate-plugins");
    return options;
  }
  // `sortie OPTIONS... launch` of a sweep of four work units on the fixture's executor.
  CommandResult launch_sweep(std::vector<std::string> options) const {
    const std::string worker = sandbox_.write_file("worker.sh", "#!/bin/sh\ntrue\n");
    ::chmod(worker.c_str(), 0755);
    const std::string file = sandbox_.write_file("sweep.yaml", R"(title: batch
executables:
  worker: {binary: ./worker.sh}
executors:
  f: {type: fixture}
job: {executable: worker, executor: f, name: w}
sweep:
  zip:
    value: [1, 2, 3, 4]
)");
    options.insert(options.end(), {"launch", file});
    return sandbox_.sortie(options);
  }
  CliSandbox sandbox_;
};

// Run in process (false) and under --isolate-plugins (true).
class CliBatchTest : public CliBatchSandbox, public ::testing::WithParamInterface<bool> {};

TEST_P(CliBatchTest, ABatchThatFailsPartWayCancelsAndRecordsWhatRan) {
  const std::vector<std::string> options = plugin_options("fixture_batchfailspartway", GetParam());
  const CommandResult launched = launch_sweep(options);
  EXPECT_EQ(launched.exit_code, 3) << launched.out << launched.err;
  EXPECT_NE(launched.err.find("schedule_batch failed: the backend dropped the batch after 2 apps"),
            std::string::npos)
      << launched.err;
  EXPECT_NE(launched.err.find("the scheduler had submitted part of the batch, so sortie "
                              "cancelled fixture_sched://default/"),
            std::string::npos)
      << launched.err;
  EXPECT_EQ(count_of(launched.err, "fixture_sched://default/"), 2u) << launched.err;

  // The two apps the fixture submitted are on record, CANCELLED; the two it never got are not.
  std::vector<std::string> list = options;
  list.insert(list.end(), {"list", "--json"});
  const CommandResult listed = sandbox_.sortie(list);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(count_of(listed.out, "fixture_sched://default/"), 2u) << listed.out;
  EXPECT_EQ(count_of(listed.out, "\"CANCELLED\""), 2u) << listed.out;
}

INSTANTIATE_TEST_SUITE_P(InProcessAndIsolated, CliBatchTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Isolated" : "InProcess"; });

TEST_F(CliBatchSandbox, ASortieThatDiesMidBatchLeavesRecordsTheNextCommandSettles) {
  // In process, the fixture's abort() after two apps takes sortie down with it ...
  const CommandResult launched = launch_sweep(plugin_options("fixture_batchabortspartway", false));
  EXPECT_EQ(launched.exit_code, 3) << launched.out << launched.err;
  EXPECT_NE(launched.err.find("crashed sortie with SIGABRT during schedule_batch"),
            std::string::npos)
      << launched.err;

  // ... leaving the four apps recorded as submitting; the next command (isolated: the crash
  // disabled the plugin in process) settles each from the scheduler's word and says so.
  std::vector<std::string> list = plugin_options("fixture_batchabortspartway", true);
  list.insert(list.end(), {"list", "--json"});
  const CommandResult listed = sandbox_.sortie(list);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(count_of(listed.err, "died before confirming the submission"), 4u) << listed.err;
  EXPECT_EQ(count_of(listed.out, "fixture_sched://default/"), 4u) << listed.out;
  EXPECT_EQ(count_of(listed.out, "\"FAILED\""), 4u) << listed.out;
}

}  // namespace
}  // namespace sortie::testing
