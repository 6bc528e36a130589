#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <tuple>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

std::string json_string(const std::string& text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
  return buffer.GetString();
}

std::string shell_role(const std::string& name, const std::string& script, int replicas = 1) {
  return R"({"name":")" + name + R"(","entrypoint":"sh","args":["-c",)" + json_string(script) +
         R"(,"${replica_id}"],"num_replicas":)" + std::to_string(replicas) + "}";
}

std::string log_request(const std::string& members) {
  return R"({"schema":"sortie.log_request/1")" + members + "}";
}

std::vector<std::string> data_of(const std::vector<Line>& lines) {
  std::vector<std::string> data;
  for (const Line& line : lines) data.push_back(line.data);
  return data;
}

class LogStreamTest : public ::testing::Test {
 protected:
  std::string run(const std::string& id, const std::string& roles) {
    const std::string app = scheduler_.submit(dryrun_input(id, "[" + roles + "]", "{}"));
    EXPECT_STREQ(scheduler_.wait_terminal(app)["state"].GetString(), "SUCCEEDED");
    return app;
  }
  std::vector<Line> read(const std::string& app, const std::string& members) {
    std::vector<Line> lines;
    const Result result = scheduler_.logs(app, log_request(members), &lines);
    EXPECT_EQ(result.status, SORTIE_OK) << result.err;
    return lines;
  }

  TempDir state_;
  SchedulerClient scheduler_{"local_cwd", state_.path()};
};

TEST_F(LogStreamTest, StreamsAreExactAndCombinedKeepsWholeLines) {
  const std::string app = run(
      "streams", shell_role("w", "printf 'out1\\nout'; printf 'err1\\n' >&2; printf '2\\nout3'"));
  // A fresh instance reads what the first one started, as a later CLI process would.
  SchedulerClient other("local_cwd", state_.path());
  std::vector<Line> stdout_lines;
  ASSERT_EQ(other.logs(app, log_request(R"(,"streams":"stdout")"), &stdout_lines).status,
            SORTIE_OK);
  EXPECT_EQ(data_of(stdout_lines), (std::vector<std::string>{"out1\n", "out2\n", "out3"}));
  for (const Line& line : stdout_lines) {
    EXPECT_EQ(line.stream, SORTIE_STREAM_STDOUT);
    EXPECT_EQ(line.role, "w");
    EXPECT_EQ(line.replica_id, 0u);
    EXPECT_GT(line.timestamp_ns, 0);
  }
  const std::vector<Line> stderr_lines = read(app, R"(,"streams":"stderr")");
  ASSERT_EQ(data_of(stderr_lines), (std::vector<std::string>{"err1\n"}));
  EXPECT_EQ(stderr_lines[0].stream, SORTIE_STREAM_STDERR);

  const std::vector<Line> combined = read(app, R"(,"streams":"combined")");
  ASSERT_EQ(combined.size(), 4u) << ::testing::PrintToString(data_of(combined));
  std::vector<std::string> out_part, err_part;
  for (const Line& line : combined) {
    (line.stream == SORTIE_STREAM_STDOUT ? out_part : err_part).push_back(line.data);
  }
  EXPECT_EQ(out_part, (std::vector<std::string>{"out1\n", "out2\n", "out3"}));
  EXPECT_EQ(err_part, (std::vector<std::string>{"err1\n"}));
  EXPECT_EQ(read(app, "").size(), 4u);  // combined is the default
}

TEST_F(LogStreamTest, UnterminatedLastLinesStayLinesAcrossStreamsAndRestarts) {
  TempDir work;
  const std::string marker = work.path() + "/failed-once";
  const std::string script = "printf 'err\\n' >&2; printf 'try'; if [ ! -e " + marker +
                             " ]; then touch " + marker + "; exit 1; fi; printf 'ok\\n'";
  const std::string role = R"({"name":"w","entrypoint":"sh","args":["-c",)" + json_string(script) +
                           R"(],"max_retries":1})";
  const std::string app = run("restart", role);
  EXPECT_EQ(data_of(read(app, R"(,"streams":"stdout")")),
            (std::vector<std::string>{"try", "tryok\n"}));
  std::vector<std::string> out_part;
  for (const Line& line : read(app, "")) {
    if (line.stream == SORTIE_STREAM_STDOUT) out_part.push_back(line.data);
  }
  EXPECT_EQ(out_part, (std::vector<std::string>{"try", "tryok\n"}));
}

TEST_F(LogStreamTest, AMillionLinesArriveExactly) {
  const std::string app =
      run("million", R"({"name":"w","entrypoint":"seq","args":["1","1000000"]})");
  std::string expected;
  for (int i = 1; i <= 1000000; ++i) expected += std::to_string(i) + "\n";
  for (const char* streams : {"stdout", "combined"}) {
    const std::vector<Line> lines = read(app, std::string(R"(,"streams":")") + streams + "\"");
    ASSERT_EQ(lines.size(), 1000000u) << streams;
    std::string joined;
    joined.reserve(expected.size());
    bool every_line_whole = true;
    for (const Line& line : lines) {
      every_line_whole = every_line_whole && line.data.back() == '\n' &&
                         line.data.find('\n') == line.data.size() - 1;
      joined += line.data;
    }
    EXPECT_TRUE(every_line_whole) << streams;
    EXPECT_TRUE(joined == expected) << streams;
  }
}

TEST_F(LogStreamTest, ATwoMebibyteLineArrivesWhole) {
  const std::string app =
      run("long", shell_role("w", "head -c 2097152 /dev/zero | tr '\\0' a; echo; echo tail"));
  const std::string big = std::string(2097152, 'a') + "\n";
  for (const char* streams : {"stdout", "combined"}) {
    const std::vector<Line> lines = read(app, std::string(R"(,"streams":")") + streams + "\"");
    ASSERT_EQ(lines.size(), 2u) << streams;
    EXPECT_TRUE(lines[0].data == big) << streams << " " << lines[0].data.size();
    EXPECT_EQ(lines[1].data, "tail\n");
  }
}

TEST_F(LogStreamTest, ALineLongerThanTheLimitIsCutAndItsRestSkipped) {
  ::setenv("SORTIE_LIMIT_LOG_LINE_BYTES", "1000", 1);
  const std::string app =
      run("cut", shell_role("w",
                            "head -c 5000 /dev/zero | tr '\\0' a; echo; echo tail; "
                            "head -c 3000 /dev/zero | tr '\\0' b >> \"$SORTIE_METRICS_FILE\""));
  for (const char* streams : {"stdout", "combined"}) {
    const std::vector<Line> lines = read(app, std::string(R"(,"streams":")") + streams + "\"");
    EXPECT_EQ(data_of(lines), (std::vector<std::string>{std::string(999, 'a') + "\n", "tail\n"}))
        << streams;
  }
  EXPECT_EQ(data_of(read(app, R"(,"streams":"metrics")")),
            (std::vector<std::string>{std::string(999, 'b') + "\n"}));
  ::unsetenv("SORTIE_LIMIT_LOG_LINE_BYTES");
}

// A job can make its metrics file anything: a FIFO would block the reader for ever, a link to
// /dev/zero feed it without end. Either is refused at once, naming the file.
TEST_F(LogStreamTest, AMetricsFileThatIsNotARegularFileIsRefused) {
  for (const auto& [id, make, kind] :
       {std::tuple{"fifo", "mkfifo", "a FIFO"}, {"zero", "ln -s /dev/zero", "a symbolic link"}}) {
    const std::string app =
        run(id, shell_role("w", std::string("rm -f \"$SORTIE_METRICS_FILE\"; ") + make +
                                    " \"$SORTIE_METRICS_FILE\""));
    std::vector<Line> lines;
    const Result result = scheduler_.logs(app, log_request(R"(,"streams":"metrics")"), &lines);
    EXPECT_EQ(result.status, SORTIE_FAILED_PRECONDITION) << id << ": " << result.err;
    EXPECT_NE(result.err.find(std::string("w.0.metrics.jsonl' is ") + kind), std::string::npos)
        << result.err;
    EXPECT_TRUE(lines.empty());
  }
}

TEST_F(LogStreamTest, CarriageReturnsPassThrough) {
  const std::string app = run("progress", shell_role("w", "printf 'step 1\\rstep 2\\rdone\\n'"));
  EXPECT_EQ(data_of(read(app, "")), (std::vector<std::string>{"step 1\rstep 2\rdone\n"}));
}

TEST_F(LogStreamTest, SelectsRolesAndReplicas) {
  const std::string app =
      run("select", shell_role("a", "echo a$0", 2) + "," + shell_role("b", "echo b$0"));
  const std::vector<Line> one = read(app, R"(,"role":"a","replica":1)");
  ASSERT_EQ(data_of(one), (std::vector<std::string>{"a1\n"}));
  EXPECT_EQ(one[0].role, "a");
  EXPECT_EQ(one[0].replica_id, 1u);
  std::vector<std::string> role_a = data_of(read(app, R"(,"role":"a")"));
  std::sort(role_a.begin(), role_a.end());
  EXPECT_EQ(role_a, (std::vector<std::string>{"a0\n", "a1\n"}));
  std::vector<std::string> all = data_of(read(app, R"(,"role":null,"replica":null)"));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::string>{"a0\n", "a1\n", "b0\n"}));

  std::vector<Line> ignored;
  const Result no_role = scheduler_.logs(app, log_request(R"(,"role":"c")"), &ignored);
  EXPECT_EQ(no_role.status, SORTIE_NOT_FOUND);
  EXPECT_NE(no_role.err.find("'c'"), std::string::npos) << no_role.err;
  EXPECT_EQ(scheduler_.logs(app, log_request(R"(,"role":"b","replica":4)"), &ignored).status,
            SORTIE_NOT_FOUND);
  EXPECT_EQ(scheduler_.logs(app, log_request(R"(,"streams":"both")"), &ignored).status,
            SORTIE_INVALID_ARGUMENT);
}

TEST_F(LogStreamTest, ReplicasAreMergedByTimestamp) {
  // Replica r prints "r:k" at about (2k + r) * 300 ms, so the writes alternate between the
  // replicas; a reader must hand them over in that order, not replica by replica.
  const std::string script = "sleep 0.$((3 * $0)); for k in 0 1 2; do echo $0:$k; sleep 0.6; done";
  const std::string app = run("merge", shell_role("w", script, 2));
  const std::vector<Line> lines = read(app, "");
  EXPECT_EQ(data_of(lines),
            (std::vector<std::string>{"0:0\n", "1:0\n", "0:1\n", "1:1\n", "0:2\n", "1:2\n"}));
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_LE(lines[i - 1].timestamp_ns, lines[i].timestamp_ns);
    EXPECT_EQ(lines[i].replica_id, static_cast<uint32_t>(lines[i].data[0] - '0'));
  }
}

TEST_F(LogStreamTest, SinceAndUntilBoundTimestamps) {
  const std::string app = run("times", shell_role("w", "echo early; sleep 0.2; echo late"));
  const std::vector<Line> all = read(app, "");
  ASSERT_EQ(all.size(), 2u);
  ASSERT_LT(all[0].timestamp_ns, all[1].timestamp_ns);
  const std::string since = R"(,"since":)" + std::to_string(all[1].timestamp_ns);
  EXPECT_EQ(data_of(read(app, since)), (std::vector<std::string>{"late\n"}));
  const std::string until = R"(,"until":)" + std::to_string(all[0].timestamp_ns);
  EXPECT_EQ(data_of(read(app, until)), (std::vector<std::string>{"early\n"}));
}

TEST_F(LogStreamTest, FollowDeliversLinesAsWrittenUntilTheAppEnds) {
  TempDir work;
  const std::string marker = work.path() + "/go";
  const std::string app =
      scheduler_.submit(dryrun_input("follow",
                                     "[" +
                                         shell_role("w", "echo first; while [ ! -e " + marker +
                                                             " ]; do sleep 0.02; done; "
                                                             "printf second") +
                                         "]",
                                     "{}"));
  auto reader = scheduler_.open_logs(app, log_request(R"(,"follow":true)"));
  std::vector<Line> lines;
  bool eof = false;
  while (!eof && lines.empty()) eof = reader->next(60000, &lines);
  ASSERT_FALSE(eof);
  EXPECT_EQ(data_of(lines), (std::vector<std::string>{"first\n"}));

  // Without follow, the running app's log ends where it stands now.
  std::vector<Line> snapshot;
  ASSERT_EQ(scheduler_.logs(app, log_request(""), &snapshot).status, SORTIE_OK);
  EXPECT_EQ(data_of(snapshot), (std::vector<std::string>{"first\n"}));

  std::ofstream(marker).put('\n');
  while (!eof) eof = reader->next(60000, &lines);
  EXPECT_EQ(data_of(lines), (std::vector<std::string>{"first\n", "second"}));
  EXPECT_STREQ(parse(scheduler_.describe(app).out)["state"].GetString(), "SUCCEEDED");
}

}  // namespace
}  // namespace sortie::local::testing
