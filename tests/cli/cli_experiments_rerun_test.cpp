// `sortie experiments rerun`, end to end through the real binary on local_cwd: the failed units of
// a sweep run again with their recorded args as a second attempt, the first attempt's logs kept;
// a unit still running, a selection of nothing, --missing and a unit another command is rerunning
// are refused by name.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

class CliExperimentsRerunTest : public ::testing::Test {
 protected:
  // job.sh fails for lr 3 and 5 while the marker file exists, leaving a progress file in its
  // output directory that a later run prints; for lr 9 it runs until job.sh.release exists or
  // the sandbox is gone, so none outlives the test.
  void SetUp() override {
    const std::string script = sandbox_.write_file("job.sh", R"SH(#!/bin/sh
case "$*" in
  *--lr=3*|*--lr=5*) if [ -e ")SH" + marker() + R"SH(" ]; then
      echo "$*" > "$SORTIE_OUTPUT_DIR/progress"; echo "failed with $*"; exit 1; fi ;;
  *--lr=9*) while [ ! -e "$0.release" ] && [ -e "$0" ]; do sleep 0.05; done ;;
esac
[ -e "$SORTIE_OUTPUT_DIR/progress" ] && echo "resumed from $(cat "$SORTIE_OUTPUT_DIR/progress")"
echo "ran with $*"
)SH");
    ::chmod(script.c_str(), 0755);
    sandbox_.write_file("marker", "");
  }
  std::string marker() const { return sandbox_.root() + "/marker"; }
  std::string launch_sweep(const std::string& values, bool wait, int expected_exit) {
    const std::string file = sandbox_.write_file("sweep.yaml", R"(title: sweep
live_workdir: true
executables:
  trainer: {binary: ./job.sh}
job:
  executable: trainer
  name: train
sweep:
  product: {lr: )" + values + "}\n");
    std::vector<std::string> args = {"launch", file};
    if (wait) args.push_back("--wait");
    const CommandResult launched = sandbox_.sortie(args);
    EXPECT_EQ(launched.exit_code, expected_exit) << launched.out << launched.err;
    return experiment_id(launched.out);
  }
  CliSandbox sandbox_;
};

TEST_F(CliExperimentsRerunTest, TheFailedUnitsRunAgainWithTheirArgsAsASecondAttempt) {
  const std::string id = launch_sweep("[1, 2, 3, 4, 5, 6]", true, 1);
  ASSERT_FALSE(id.empty());
  std::filesystem::remove(marker());

  const CommandResult rerun = sandbox_.sortie({"experiments", "rerun", id, "--failed", "--wait"});
  ASSERT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
  EXPECT_NE(rerun.out.find("work unit 3 (attempt 2): " + id + "_3_train"), std::string::npos)
      << rerun.out;
  EXPECT_NE(rerun.out.find("work unit 5 (attempt 2): " + id + "_5_train"), std::string::npos)
      << rerun.out;
  EXPECT_EQ(rerun.out.find("work unit 1 "), std::string::npos) << rerun.out;

  const CommandResult shown = sandbox_.sortie({"experiments", "show", id, "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  rapidjson::Document json;
  json.Parse(shown.out.c_str());
  ASSERT_TRUE(json.IsObject()) << shown.out;
  EXPECT_STREQ(json["state"].GetString(), "SUCCEEDED");
  const auto& units = json["work_units"];
  ASSERT_EQ(units.Size(), 6u);
  std::vector<int> attempts;
  for (const auto& unit : units.GetArray()) {
    attempts.push_back(unit["attempt"].GetInt());
    EXPECT_STREQ(unit["state"].GetString(), "SUCCEEDED") << shown.out;
  }
  EXPECT_EQ(attempts, (std::vector<int>{1, 1, 2, 1, 2, 1}));
  for (const int unit : {3, 5}) {
    const auto& record = units[unit - 1];
    ASSERT_EQ(record["earlier_attempts"].Size(), 1u) << shown.out;
    const auto& first = record["earlier_attempts"][0];
    EXPECT_EQ(first["attempt"].GetInt(), 1);
    EXPECT_STREQ(first["state"].GetString(), "FAILED");
    const std::string lr = "--lr=" + std::to_string(unit);
    const CommandResult first_log = sandbox_.sortie({"log", first["app"].GetString()});
    EXPECT_NE(first_log.out.find("failed with " + lr), std::string::npos) << first_log.out;
    const CommandResult second_log = sandbox_.sortie({"log", record["jobs"][0]["app"].GetString()});
    EXPECT_NE(second_log.out.find("ran with " + lr), std::string::npos) << second_log.out;
    // Both attempts write to the unit's one output directory: the re-run finds what the first
    // attempt left there.
    EXPECT_NE(second_log.out.find("resumed from " + lr), std::string::npos) << second_log.out;
    EXPECT_TRUE(std::string(record["output_dir"].GetString())
                    .ends_with("/outputs/experiments/" + id + "/" + std::to_string(unit)))
        << shown.out;
  }
  EXPECT_EQ(units[0]["earlier_attempts"].Size(), 0u);
  const CommandResult first_unit_log =
      sandbox_.sortie({"log", units[0]["jobs"][0]["app"].GetString()});
  EXPECT_EQ(first_unit_log.out.find("resumed"), std::string::npos) << first_unit_log.out;

  const CommandResult text = sandbox_.sortie({"experiments", "show", id});
  EXPECT_NE(text.out.find("work unit 3: SUCCEEDED (attempt 2)  lr=3"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("work unit 4: SUCCEEDED  lr=4"), std::string::npos) << text.out;
}

TEST_F(CliExperimentsRerunTest, AUnitStillRunningIsRefusedByName) {
  const std::string id = launch_sweep("[9, 3]", false, 0);
  ASSERT_FALSE(id.empty());
  // Unit 2 fails at once; unit 1 runs until released.
  CommandResult refused;
  for (int tries = 0; tries < 200; ++tries) {
    refused = sandbox_.sortie({"experiments", "rerun", id, "--units", "1-2"});
    if (refused.err.find("RUNNING") != std::string::npos) break;
  }
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("work unit 1 (RUNNING)"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("has not ended"), std::string::npos) << refused.err;

  const CommandResult unknown = sandbox_.sortie({"experiments", "rerun", id, "--units", "7"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("has no work unit 7"), std::string::npos) << unknown.err;
  const CommandResult none = sandbox_.sortie({"experiments", "rerun", id});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--failed, --cancelled or --units"), std::string::npos) << none.err;
  const CommandResult missing = sandbox_.sortie({"experiments", "rerun", id, "--missing"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--missing is not supported yet"), std::string::npos) << missing.err;
  const CommandResult backwards = sandbox_.sortie({"experiments", "rerun", id, "--units", "2-1"});
  EXPECT_EQ(backwards.exit_code, 2);
  EXPECT_NE(backwards.err.find("'2-1' runs backwards"), std::string::npos) << backwards.err;

  sandbox_.write_file("job.sh.release", "");
  const CommandResult cancelled_none = sandbox_.sortie({"experiments", "rerun", id, "--cancelled"});
  EXPECT_EQ(cancelled_none.exit_code, 2);
  EXPECT_NE(cancelled_none.err.find("matches the selection; nothing to run again"),
            std::string::npos)
      << cancelled_none.err;
}

// Two shells rerun the same unit at once, five times over: each time exactly one runs it (the
// next attempt); the other is refused by name, whether it lost the race to record the attempt
// (ALREADY_EXISTS, exit 3) or read the unit once it ran again (exit 2), never with SQLite's text.
TEST_F(CliExperimentsRerunTest, ConcurrentRerunsOfOneUnitRunItOnceAndRefuseTheOtherByName) {
  sandbox_.write_file("job.sh.release", "");
  const std::string id = launch_sweep("[9]", true, 0);
  ASSERT_FALSE(id.empty());
  const std::vector<std::string> rerun = {"experiments", "rerun", id, "--units", "1"};
  int lost_the_race = 0;
  for (int round = 1; round <= 5; ++round) {
    std::filesystem::remove(sandbox_.root() + "/job.sh.release");
    const std::vector<CommandResult> results = sandbox_.sortie_concurrently({rerun, rerun});
    int ran = 0;
    std::string handle;
    for (const CommandResult& result : results) {
      EXPECT_EQ(result.err.find("UNIQUE"), std::string::npos) << result.err;
      if (result.exit_code == 0) {
        ++ran;
        const std::string attempt = "(attempt " + std::to_string(round + 1) + "): ";
        EXPECT_NE(result.out.find(attempt), std::string::npos) << result.out;
        const std::string line = first_line(result.out);
        handle = line.substr(line.rfind(' ') + 1);
      } else if (result.exit_code == 3) {
        ++lost_the_race;
        EXPECT_NE(result.err.find("work unit 1 of experiment " + id +
                                  " is being rerun by another command"),
                  std::string::npos)
            << result.err;
      } else {
        EXPECT_EQ(result.exit_code, 2) << result.err;
        EXPECT_NE(result.err.find("has not ended"), std::string::npos) << result.err;
      }
    }
    ASSERT_EQ(ran, 1) << "round " << round;
    sandbox_.write_file("job.sh.release", "");
    EXPECT_EQ(json_string_member(sandbox_.wait_terminal(handle), "state"), "SUCCEEDED") << handle;
  }
  std::printf("%d of 5 concurrent reruns lost the race to record the attempt\n", lost_the_race);
}

}  // namespace
}  // namespace sortie::testing
