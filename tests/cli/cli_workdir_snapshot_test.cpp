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

// Issue 31 finding 1: a unit, root or not, can write nothing of the snapshot it runs from (the
// store's blobs are hard-linked into it), so no later experiment runs what a unit wrote.
TEST_F(CliWorkdirSnapshotTest, AUnitCannotWriteTheSnapshotItRunsFrom) {
  const std::string writer = sandbox_.write_file("cwd/writer.sh", R"(#!/bin/sh
try() { if eval "$1" 2>/dev/null; then echo wrote; else echo refused; fi; }
{ try 'echo lr=666 >> config.txt'; try 'echo x > new.txt'; try 'rm -f config.txt';
  try 'chmod u+w job.sh'; cat config.txt; } > "$OUT/$SORTIE_EXPERIMENT_ID"
)");
  ::chmod(writer.c_str(), 0755);
  const std::string file = sandbox_.write_file("cwd/writer.yaml", R"(title: writer
executables:
  writer: {binary: ./writer.sh}
job: {executable: writer, name: unit, env_vars: {OUT: )" + sandbox_.root() +
                                                                      "/out}}\n");
  const CommandResult first = sandbox_.sortie({"launch", file, "--wait"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  std::ifstream in(sandbox_.root() + "/out/" + experiment_id(first.out));
  std::stringstream written;
  written << in.rdbuf();
  EXPECT_EQ(written.str(), "refused\nrefused\nrefused\nrefused\nold") << first.err;

  // A later experiment from the unchanged directory runs what the directory holds.
  const CommandResult second = sandbox_.sortie({"launch", file, "--wait"});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  std::ifstream again(sandbox_.root() + "/out/" + experiment_id(second.out));
  std::stringstream read_again;
  read_again << again.rdbuf();
  EXPECT_EQ(read_again.str(), "refused\nrefused\nrefused\nrefused\nold");

  const CommandResult verified =
      sandbox_.sortie({"experiments", "verify", experiment_id(first.out)});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find(": 0 changed, 0 file(s) of experiment"), std::string::npos)
      << verified.out;
}

// Four launches of one new directory at once store the same blobs at once: each must link what
// another just stored (a rename over it made link() fail ENOENT in 8 of 32 launches).
TEST_F(CliWorkdirSnapshotTest, LaunchesOfOneNewDirectoryAtOnceAllTakeTheirSnapshot) {
  for (int i = 0; i < 300; ++i) {
    sandbox_.write_file("cwd/data/f" + std::to_string(i) + ".txt", "file " + std::to_string(i));
  }
  const std::string file = sandbox_.write_file("cwd/true.yaml", R"(title: at once
executables:
  t: {binary: /bin/true}
job: {executable: t, name: unit}
)");
  const std::vector<std::string> launch = {"launch", file};
  for (const CommandResult& launched :
       sandbox_.sortie_concurrently({launch, launch, launch, launch})) {
    EXPECT_EQ(launched.exit_code, 0) << launched.out << launched.err;
  }
}

}  // namespace
}  // namespace sortie::testing
