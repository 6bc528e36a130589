// Issue 23 item 3: process units run from a snapshot of the launch directory taken at launch, so
// an edit made while they wait does not reach them; `--live-workdir` and the experiment file's
// `live_workdir: true` run them from the live directory instead. Through the real `sortie launch`
// on local_cwd.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

class CliWorkdirSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Each unit waits for `go` (outside the launch directory), then writes what its working
    // directory's config.txt and its own program say.
    const std::string script = sandbox_.write_file("cwd/job.sh", R"(#!/bin/sh
VERSION=1
while [ ! -e "$GO" ]; do sleep 0.05; done
echo "$(cat config.txt) $VERSION" > "$OUT/$SORTIE_WORK_UNIT_ID"
)");
    ::chmod(script.c_str(), 0755);
    sandbox_.write_file("cwd/config.txt", "old");
    std::filesystem::create_directories(sandbox_.root() + "/out");
  }
  // `sortie launch` of three units of job.sh from the sandbox's working directory.
  CommandResult launch(const std::vector<std::string>& options, const std::string& extra_keys) {
    const std::string file = sandbox_.write_file("cwd/exp.yaml", R"(title: snapshot
executables:
  job: {binary: ./job.sh}
job:
  executable: job
  name: unit
  env_vars: {GO: )" + sandbox_.root() + "/go, OUT: " + sandbox_.root() +
                                                                     R"(/out}
sweep:
  product: {seed: [1, 2, 3]}
)" + extra_keys);
    std::vector<std::string> args = {"launch", file};
    args.insert(args.end(), options.begin(), options.end());
    return sandbox_.sortie(args);
  }
  // What each unit wrote once released, in unit order ("" for one that wrote nothing in 20 s).
  std::vector<std::string> release_and_collect() const {
    std::ofstream(sandbox_.root() + "/go") << "";
    std::vector<std::string> written;
    for (int unit = 1; unit <= 3; ++unit) {
      const std::string path = sandbox_.root() + "/out/" + std::to_string(unit);
      for (int tries = 0; tries < 400 && !std::filesystem::exists(path); ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the line is written whole
      std::ifstream in(path);
      std::string line;
      std::getline(in, line);
      written.push_back(line);
    }
    return written;
  }
  void edit_launch_dir() const { sandbox_.write_file("cwd/config.txt", "new"); }
  CliSandbox sandbox_;
};

TEST_F(CliWorkdirSnapshotTest, AnEditWhileUnitsWaitDoesNotReachThem) {
  const CommandResult launched = launch({}, "");
  ASSERT_EQ(launched.exit_code, 0) << launched.out << launched.err;
  edit_launch_dir();
  // The program itself is the snapshot's copy too: a new version reaches no waiting unit.
  sandbox_.write_file("cwd/job.sh", "#!/bin/sh\necho edited > \"$OUT/$SORTIE_WORK_UNIT_ID\"\n");
  EXPECT_EQ(release_and_collect(), (std::vector<std::string>{"old 1", "old 1", "old 1"}));

  // One snapshot for the experiment, recorded beside its tree.
  const std::string id = experiment_id(launched.out);
  const std::string manifest =
      sandbox_.root() + "/state/snapshots/experiments/" + id + "/manifest.json";
  std::ifstream in(manifest);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(json_string_member(text.str(), "launch_dir"), sandbox_.cwd()) << text.str();
  EXPECT_EQ(json_string_member(text.str(), "digest").rfind("sha256:", 0), 0u) << text.str();
}

TEST_F(CliWorkdirSnapshotTest, LiveWorkdirUnitsSeeTheEdit) {
  const CommandResult launched = launch({"--live-workdir"}, "");
  ASSERT_EQ(launched.exit_code, 0) << launched.out << launched.err;
  edit_launch_dir();
  EXPECT_EQ(release_and_collect(), (std::vector<std::string>{"new 1", "new 1", "new 1"}));
  EXPECT_FALSE(std::filesystem::exists(sandbox_.root() + "/state/snapshots/experiments/" +
                                       experiment_id(launched.out)));
}

TEST_F(CliWorkdirSnapshotTest, TheExperimentFileKeyLiveWorkdirOptsOutToo) {
  const CommandResult launched = launch({}, "live_workdir: true\n");
  ASSERT_EQ(launched.exit_code, 0) << launched.out << launched.err;
  edit_launch_dir();
  EXPECT_EQ(release_and_collect(), (std::vector<std::string>{"new 1", "new 1", "new 1"}));
}

}  // namespace
}  // namespace sortie::testing
