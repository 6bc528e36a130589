// Measurements end to end through the real binary on local_cwd (docs/experiments.md,
// "Measurements"): a 3x2 sweep whose jobs print `step=N loss=X acc=Y` compared by `experiments
// show --sort loss` and --json, the same numbers from jobs that only write $SORTIE_METRICS_FILE,
// `sortie metrics` on a running job read where the last read stopped.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

// The final loss job.sh reports for lr and batch size: lr * 10 + 1 / batch.
double final_loss(double lr, double batch) { return lr * 10 + 1 / batch; }

// The lines of `text`, sorted: points of different streams (stdout and the metrics file) are
// read in whichever order their polls find them.
std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

class CliMeasurementsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Three steps of loss and acc, printed (MODE=print) or appended to the metrics file.
    const std::string script = sandbox_.write_file("job.sh", R"(#!/bin/sh
for arg in "$@"; do
  case $arg in --lr=*) lr=${arg#--lr=} ;; --batch=*) batch=${arg#--batch=} ;; esac
done
for step in 1 2 3; do
  if [ "$MODE" = print ]; then
    awk -v s=$step -v lr=$lr -v b=$batch 'BEGIN { printf "step=%d loss=%.6f acc=%.6f\n", s, lr * 10 + 1 / b + (3 - s), 1 - lr - 1 / b }'
  else
    awk -v s=$step -v lr=$lr -v b=$batch 'BEGIN { printf "{\"step\": %d, \"loss\": %.6f, \"acc\": %.6f}\n", s, lr * 10 + 1 / b + (3 - s), 1 - lr - 1 / b }' >> "$SORTIE_METRICS_FILE"
  fi
done
[ "$MODE" = print ] || echo "step=9 loss=100 is not read from a role without a pattern" >&2
)");
    ::chmod(script.c_str(), 0755);
  }
  // Launches the 3x2 sweep and waits for it; the experiment's id.
  std::string launch_sweep(const std::string& env_vars) {
    const std::string file = sandbox_.write_file("sweep.yaml", R"(title: measured sweep
live_workdir: true
executables:
  trainer: {binary: ./job.sh, env_vars: )" + env_vars + R"(}
job: {executable: trainer, name: train}
sweep:
  product: {lr: [0.1, 0.01, 0.001], batch: [16, 32]}
)");
    const CommandResult launched = sandbox_.sortie({"launch", file, "--wait"});
    EXPECT_EQ(launched.exit_code, 0) << launched.out << launched.err;
    return experiment_id(launched.out);
  }
  // Each unit's last loss in `experiments show ID --json`, by unit id.
  std::map<int, double> json_losses(const std::string& id) {
    const CommandResult shown = sandbox_.sortie({"experiments", "show", id, "--json"});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    rapidjson::Document json;
    json.Parse(shown.out.c_str());
    std::map<int, double> losses;
    if (!json.IsObject()) {
      ADD_FAILURE() << shown.out;
      return losses;
    }
    for (const auto& unit : json["work_units"].GetArray()) {
      const double lr = std::stod(unit["args"]["lr"].GetString());
      const double batch = std::stod(unit["args"]["batch"].GetString());
      const auto& loss = unit["measurements"]["loss"];
      EXPECT_NEAR(loss["last"].GetDouble(), final_loss(lr, batch), 1e-6);
      EXPECT_EQ(loss["last_step"].GetInt(), 3);
      EXPECT_EQ(loss["count"].GetInt(), 3);
      EXPECT_TRUE(unit["measurements"].HasMember("acc"));
      losses[unit["id"].GetInt()] = loss["last"].GetDouble();
    }
    return losses;
  }
  // Launches and waits for an experiment whose job NAME runs `script` (with `executable_options`
  // such as ", env_vars: {...}", then `sweep`, and `flags` after --wait); the experiment's id.
  std::string launch_job(const std::string& name, const std::string& script,
                         const std::string& executable_options = "", const std::string& sweep = "",
                         const std::vector<std::string>& flags = {}) {
    const std::string path = sandbox_.write_file(name + ".sh", "#!/bin/sh\n" + script);
    ::chmod(path.c_str(), 0755);
    const std::string file = sandbox_.write_file(
        name + ".yaml", "title: " + name + "\nlive_workdir: true\nexecutables:\n  " + name +
                            ": {binary: ./" + name + ".sh" + executable_options + "}\njob: " +
                            "{executable: " + name + ", name: " + name + "}\n" + sweep);
    std::vector<std::string> args = {"launch", file, "--wait"};
    args.insert(args.end(), flags.begin(), flags.end());
    const CommandResult launched = sandbox_.sortie(args);
    EXPECT_EQ(launched.exit_code, 0) << launched.out << launched.err;
    return experiment_id(launched.out);
  }
  // The app of the experiment's first unit.
  std::string first_app(const std::string& id) {
    rapidjson::Document json;
    json.Parse(sandbox_.sortie({"experiments", "show", id, "--json"}).out.c_str());
    return json.IsObject() ? json["work_units"][0]["jobs"][0]["app"].GetString() : "";
  }
  CliSandbox sandbox_;
};

TEST_F(CliMeasurementsTest, ASweepShowsItsUnitsByFinalLossWithTheirHyperparameters) {
  const std::string id = launch_sweep("{MODE: print, SORTIE_METRICS_PATTERN: default}");
  ASSERT_FALSE(id.empty());
  const CommandResult shown =
      sandbox_.sortie({"experiments", "show", id, "--sort", "loss", "--best", "loss:min"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  // The table's rows: unit, state, lr, batch, acc, loss, loss:min.
  std::istringstream lines(shown.out.substr(shown.out.find("unit  state")));
  std::string line;
  std::getline(lines, line);
  EXPECT_NE(line.find("lr"), std::string::npos) << shown.out;
  EXPECT_NE(line.find("batch"), std::string::npos) << shown.out;
  EXPECT_NE(line.find("loss:min"), std::string::npos) << shown.out;
  std::vector<std::pair<std::string, std::string>> order;
  while (std::getline(lines, line) && line.rfind("state:", 0) != 0) {
    std::istringstream cells(line);
    std::string unit, state, lr, batch;
    cells >> unit >> state >> lr >> batch;
    order.emplace_back(lr, batch);
  }
  const std::vector<std::pair<std::string, std::string>> by_loss = {
      {"0.001", "32"}, {"0.001", "16"}, {"0.01", "32"},
      {"0.01", "16"},  {"0.1", "32"},   {"0.1", "16"}};
  EXPECT_EQ(order, by_loss) << shown.out;
  EXPECT_NE(shown.out.find("0.04125*"), std::string::npos) << shown.out;  // the best, marked

  const std::map<int, double> losses = json_losses(id);
  EXPECT_EQ(losses.size(), 6u);

  const CommandResult descending =
      sandbox_.sortie({"experiments", "show", id, "--sort=-loss", "--csv"});
  ASSERT_EQ(descending.exit_code, 0) << descending.err;
  EXPECT_EQ(descending.out.rfind("unit,state,lr,batch,acc,loss\n1,SUCCEEDED,0.1,16,", 0), 0u)
      << descending.out;
}

TEST_F(CliMeasurementsTest, JobsThatOnlyWriteTheMetricsFileGiveTheSameNumbers) {
  const std::string printed = launch_sweep("{MODE: print, SORTIE_METRICS_PATTERN: default}");
  const std::string written = launch_sweep("{MODE: file}");
  ASSERT_FALSE(written.empty());
  EXPECT_EQ(json_losses(written), json_losses(printed));
  // A role without a pattern had its stderr line left alone.
  const CommandResult shown = sandbox_.sortie({"experiments", "show", written, "--sort", "loss"});
  EXPECT_EQ(shown.out.find("100"), std::string::npos) << shown.out;
}

TEST_F(CliMeasurementsTest, MetricsOfARunningJobAreReadFromWhereTheLastReadStopped) {
  const std::string release = sandbox_.root() + "/release";
  const std::string spec = sandbox_.write_file(
      "spec.yaml",
      R"(name: steps
roles:
  - name: trainer
    entrypoint: sh
    args: ["-c", "echo step=1 loss=0.5; while [ ! -e )" +
          release + R"( ]; do sleep 0.05; done; echo 'step: 2, loss: 0.25'; echo step=3 loss=oops"]
    env: {SORTIE_METRICS_PATTERN: "^step", SORTIE_METRICS_STEP_KEY: step}
)");
  const CommandResult run = sandbox_.sortie({"run", spec});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = run.out.substr(0, run.out.find('\n'));
  // The first line is read once it was written (the job waits for the release meanwhile).
  CommandResult first;
  for (int i = 0; i < 200 && first.out.find("step 1") == std::string::npos; ++i) {
    first = sandbox_.sortie({"metrics", handle, "--key", "loss"});
  }
  EXPECT_EQ(first.out, "trainer/0  loss  step 1  0.5\n") << first.err;
  sandbox_.write_file("release", "");
  ASSERT_EQ(sandbox_.sortie({"log", handle, "-f"}).exit_code, 0);  // returns once the app ended
  const CommandResult all = sandbox_.sortie({"metrics", handle, "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  rapidjson::Document json;
  json.Parse(all.out.c_str());
  ASSERT_TRUE(json.IsObject()) << all.out;
  const auto& series = json["series"];
  ASSERT_EQ(series.Size(), 1u) << all.out;               // loss only: "oops" is no number
  EXPECT_EQ(series[0]["count"].GetInt(), 2) << all.out;  // the first line was read once
  EXPECT_EQ(series[0]["last"]["step"].GetInt(), 2);
  EXPECT_EQ(series[0]["last"]["value"].GetDouble(), 0.25);
  // -f on an ended app prints what there is and ends.
  const CommandResult followed = sandbox_.sortie({"metrics", handle, "-f"});
  EXPECT_EQ(followed.exit_code, 0) << followed.err;
  EXPECT_EQ(followed.out, "trainer/0  loss  step 1  0.5\ntrainer/0  loss  step 2  0.25\n");
}

TEST_F(CliMeasurementsTest, FollowingARunningJobPrintsEachPointOnceAndEndsWithIt) {
  const std::string spec = sandbox_.write_file("spec.yaml", R"(name: steps
roles:
  - name: trainer
    entrypoint: sh
    args: ["-c", "echo step=1 loss=0.5; sleep 1; echo step=2 loss=0.25; echo '{\"step\": 3, \"loss\": 0.125}' >> $SORTIE_METRICS_FILE"]
    env: {SORTIE_METRICS_PATTERN: default}
)");
  const CommandResult run = sandbox_.sortie({"run", spec});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = run.out.substr(0, run.out.find('\n'));
  const CommandResult followed = sandbox_.sortie({"metrics", handle, "-f"});
  EXPECT_EQ(followed.exit_code, 0) << followed.err;
  const std::vector<std::string> expected = {"trainer/0  loss  step 1  0.5",
                                             "trainer/0  loss  step 2  0.25",
                                             "trainer/0  loss  step 3  0.125"};
  EXPECT_EQ(sorted_lines(followed.out), expected) << followed.out;
  // Read once: a later reader finds the same three points.
  const CommandResult again = sandbox_.sortie({"metrics", handle});
  EXPECT_EQ(sorted_lines(again.out), expected) << again.out;
}

TEST_F(CliMeasurementsTest, TheFirstStatusThatSeesAnAppEndedKeepsItsMeasurements) {
  const std::string spec = sandbox_.write_file("spec.yaml", R"(name: ended
roles:
  - name: trainer
    entrypoint: sh
    args: ["-c", "echo \"step=1 loss=0.5 $SORTIE_METRICS_FILE\""]
    env: {SORTIE_METRICS_PATTERN: default}
)");
  const CommandResult run = sandbox_.sortie({"run", "--wait", spec});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = run.out.substr(0, run.out.find('\n'));
  ASSERT_EQ(sandbox_.sortie({"status", handle}).exit_code, 0);
  // The logs go (a backend that forgets them); what the status read stays.
  const CommandResult log = sandbox_.sortie({"log", handle, "--no-prefix"});
  const std::string metrics_file = log.out.substr(log.out.rfind(' ') + 1);
  const std::string app_dir = metrics_file.substr(0, metrics_file.rfind('/'));
  std::filesystem::remove_all(app_dir + "/trainer");
  EXPECT_EQ(sandbox_.sortie({"metrics", handle}).out, "trainer/0  loss  step 1  0.5\n");
}

// torchrun's --tee prefixes each process's lines with `[LOCAL_RANK]:`, and they all reach the
// replica's log: each rank is a series of its own, and a unit's number is rank 0's. Asked for
// with --metrics rather than the file's env_vars.
TEST_F(CliMeasurementsTest, EachTorchrunRankIsASeriesAndAUnitShowsRankZero) {
  const std::string id =
      launch_job("train", R"(echo "[0]:step=1 loss=0.5"; echo "[1]:step=1 loss=0.9"
echo "[0]:step=2 loss=0.25"; echo "[1]:step=2 loss=0.8"
echo "step=2 loss=7"
)",
                 "", "", {"--metrics", "default"});
  ASSERT_FALSE(id.empty());
  const CommandResult csv = sandbox_.sortie({"experiments", "show", id, "--csv"});
  EXPECT_EQ(csv.out, "unit,state,loss\n1,SUCCEEDED,0.25\n") << csv.err;
  rapidjson::Document json;
  json.Parse(sandbox_.sortie({"experiments", "show", id, "--json"}).out.c_str());
  ASSERT_TRUE(json.IsObject());
  const auto& loss = json["work_units"][0]["measurements"]["loss"];
  EXPECT_EQ(loss["rank"].GetInt(), 0);
  EXPECT_EQ(loss["count"].GetInt(), 2);
  const CommandResult metrics = sandbox_.sortie({"metrics", first_app(id)});
  EXPECT_EQ(metrics.out,
            "train/0  loss  step 2  7\n"
            "train/0[0]  loss  step 1  0.5\ntrain/0[0]  loss  step 2  0.25\n"
            "train/0[1]  loss  step 1  0.9\ntrain/0[1]  loss  step 2  0.8\n")
      << metrics.err;
}

TEST_F(CliMeasurementsTest, RunAsksForMeasurementsWithAFlagAndWarnsOfTheShellsVariables) {
  const CommandResult run = sandbox_.sortie(
      {"run", "--wait", "--metrics", "loss=", "--", "sh", "-c", "echo epoch=1 loss=0.5"},
      {{"SORTIE_METRICS_PATTERN", "default"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("sortie run: warning: SORTIE_METRICS_PATTERN is set in this shell, "
                         "where no job sees it"),
            std::string::npos)
      << run.err;
  const std::string handle = run.out.substr(0, run.out.find('\n'));
  EXPECT_EQ(sandbox_.sortie({"metrics", handle}).out,
            "sh/0  epoch  step 0  1\nsh/0  loss  step 0  0.5\n");
}

// A job owns its metrics file: a FIFO there, a link to /dev/zero or a line of megabytes leaves
// every reader returning at once with a one-line note (the timeout only guards against a hang).
TEST_F(CliMeasurementsTest, ReadersReturnWithANoteWhateverTheMetricsFileIs) {
  const std::string guard =
      sandbox_.write_file("guard.sh", "#!/bin/sh\nexec timeout 120 sortie \"$@\"\n");
  ::chmod(guard.c_str(), 0755);
  sandbox_.invoke_as({guard});
  const std::string id = launch_job("job", R"(echo step=1 loss=0.5
case $1 in
  --mode=fifo) rm -f "$SORTIE_METRICS_FILE"; mkfifo "$SORTIE_METRICS_FILE" ;;
  --mode=zero) rm -f "$SORTIE_METRICS_FILE"; ln -s /dev/zero "$SORTIE_METRICS_FILE" ;;
  --mode=long) { head -c 6000000 /dev/zero | tr '\0' 1; echo; } >> "$SORTIE_METRICS_FILE"
               echo '{"step": 2, "loss": 0.25}' >> "$SORTIE_METRICS_FILE" ;;
esac
)",
                                    ", env_vars: {SORTIE_METRICS_PATTERN: default}",
                                    "sweep:\n  product: {mode: [fifo, zero, long]}\n");
  ASSERT_FALSE(id.empty());
  rapidjson::Document json;
  json.Parse(sandbox_.sortie({"experiments", "show", id, "--json"}).out.c_str());
  ASSERT_TRUE(json.IsObject());
  const char* kinds[] = {"a FIFO", "a symbolic link", nullptr};
  for (int unit = 0; unit < 3; ++unit) {
    const std::string app = json["work_units"][unit]["jobs"][0]["app"].GetString();
    const std::string note = kinds[unit] == nullptr ? ""
                                                    : std::string("job.0.metrics.jsonl' is ") +
                                                          kinds[unit] + ", not a regular file";
    for (const std::vector<std::string>& command : {std::vector<std::string>{"status", app},
                                                    {"log", app},
                                                    {"describe", app},
                                                    {"metrics", app}}) {
      const CommandResult result = sandbox_.sortie(command);
      EXPECT_EQ(result.exit_code, 0) << command[0] << " " << app << ": " << result.err;
      if (!note.empty()) {
        EXPECT_NE(result.err.find("sortie: note: measurements of " + app + " not read: "),
                  std::string::npos)
            << command[0] << ": " << result.err;
        EXPECT_NE(result.err.find(note), std::string::npos) << command[0] << ": " << result.err;
        EXPECT_EQ(result.err.find(note), result.err.rfind(note)) << "one note: " << result.err;
      }
    }
    const CommandResult metrics = sandbox_.sortie({"metrics", app, "--key", "loss"});
    EXPECT_EQ(metrics.out, kinds[unit] == nullptr
                               ? "job/0  loss  step 1  0.5\njob/0  loss  step 2  0.25\n"
                               : "job/0  loss  step 1  0.5\n")
        << metrics.err;
  }
  const CommandResult shown = sandbox_.sortie({"experiments", "show", id, "--csv"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out,
            "unit,state,mode,loss\n1,SUCCEEDED,fifo,0.5\n2,SUCCEEDED,zero,0.5\n"
            "3,SUCCEEDED,long,0.25\n")
      << shown.err;
}

// Keys are the job's text: on a terminal they are escaped, in CSV too and quoted where they hold
// a comma, and a NUL cuts nothing.
TEST_F(CliMeasurementsTest, KeysAreEscapedOnTheTerminalAndInCsv) {
  const std::string id =
      launch_job("w", R"(printf '{"\\u001b[2Jx": 1, "a\\u0000b,c": 2}\n' >> "$SORTIE_METRICS_FILE"
)");
  ASSERT_FALSE(id.empty());
  const CommandResult metrics = sandbox_.sortie({"metrics", first_app(id)});
  EXPECT_EQ(metrics.out, "w/0  \\x1b[2Jx  step 0  1\nw/0  a\\x00b,c  step 0  2\n") << metrics.err;
  const CommandResult csv = sandbox_.sortie({"experiments", "show", id, "--csv"});
  EXPECT_EQ(csv.out, "unit,state,\\x1b[2Jx,\"a\\x00b,c\"\n1,SUCCEEDED,1,2\n") << csv.err;
}

TEST_F(CliMeasurementsTest, BadOptionsAreRefusedByName) {
  const std::string id = launch_sweep("{MODE: print, SORTIE_METRICS_PATTERN: default}");
  const CommandResult sort = sandbox_.sortie({"experiments", "show", id, "--sort", "los"});
  EXPECT_EQ(sort.exit_code, 2);
  EXPECT_NE(sort.err.find("--sort 'los': no such column; the columns are unit, state, lr, batch, "
                          "acc, loss"),
            std::string::npos)
      << sort.err;
  const CommandResult nothing = sandbox_.sortie({"metrics", first_app(id), "--key", "lr"});
  EXPECT_EQ(nothing.exit_code, 0);
  EXPECT_EQ(nothing.out, "");
  EXPECT_NE(nothing.err.find("measured nothing under the key 'lr'"), std::string::npos)
      << nothing.err;
  const CommandResult best = sandbox_.sortie({"experiments", "show", id, "--best", "loss"});
  EXPECT_EQ(best.exit_code, 2);
  EXPECT_NE(best.err.find("--best 'loss': expected KEY:min or KEY:max"), std::string::npos)
      << best.err;
}

}  // namespace
}  // namespace sortie::testing
