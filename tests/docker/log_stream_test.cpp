// Logs of local_docker apps read through the Engine: streams, since/until, follow, role and
// replica selection, and a last line without a newline.
#include <gtest/gtest.h>

#include <chrono>

#include "docker_test_support.hpp"

namespace sortie::docker::testing {
namespace {

using DockerLogs = DockerAppFixture;

struct Line {
  int32_t stream;
  std::string role;
  uint32_t replica;
  int64_t timestamp;
  std::string data;
};

void collect(void* ctx, const sortie_log_line* line) {
  static_cast<std::vector<Line>*>(ctx)->push_back(
      {line->stream, std::string(line->role.ptr, line->role.len), line->replica_id,
       line->timestamp_ns, std::string(line->data.ptr, line->data.len)});
}

std::vector<Line> read_all(LogStream& stream) {
  std::vector<Line> lines;
  sortie_log_sink sink{&lines, collect};
  while (stream.next(10000, LogSink(&sink))) {
  }
  return lines;
}

std::string joined(const std::vector<Line>& lines) {
  std::string text;
  for (const Line& line : lines)
    text += line.role + "/" + std::to_string(line.replica) + ":" +
            (line.stream == SORTIE_STREAM_STDERR ? "err:" : "") + line.data;
  return text;
}

TEST_F(DockerLogs, StreamsRolesReplicasAndUnfinishedLastLine) {
  const std::string app_id = fresh_app_id("logs");
  submit(dryrun_input(app_id, "[" +
                                  shell_role("a",
                                             "echo out-$SORTIE_REPLICA_ID; echo err >&2; "
                                             "printf tail",
                                             R"("num_replicas":2)") +
                                  "," + shell_role("b", "echo bee") + "]"));
  wait_terminal(app_id);
  const std::vector<Line> all = read_all(*scheduler()->log_open(app_id, "{}"));
  EXPECT_EQ(all.size(), 7u) << joined(all);
  const std::vector<Line> replica1 =
      read_all(*scheduler()->log_open(app_id, R"({"role":"a","replica":1,"streams":"stdout"})"));
  ASSERT_EQ(replica1.size(), 2u) << joined(replica1);
  EXPECT_EQ(replica1[0].data, "out-1\n");
  EXPECT_EQ(replica1[1].data, "tail");  // handed over whole once the container ended
  EXPECT_GT(replica1[0].timestamp, 1600000000000000000);
  const std::vector<Line> errors =
      read_all(*scheduler()->log_open(app_id, R"({"role":"a","streams":"stderr"})"));
  ASSERT_EQ(errors.size(), 2u) << joined(errors);
  EXPECT_EQ(errors[0].stream, SORTIE_STREAM_STDERR);
  EXPECT_EQ(errors[0].data, "err\n");
  try {
    scheduler()->log_open(app_id, R"({"role":"nope"})");
    FAIL() << "unknown role accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kNotFound);
    EXPECT_NE(std::string(error.what()).find("'a'"), std::string::npos) << error.what();
  }
  EXPECT_THROW(scheduler()->log_open(app_id, R"({"role":"b","replica":5})"), Error);
}

TEST_F(DockerLogs, SinceAndUntilBoundTimestamps) {
  const std::string app_id = fresh_app_id("since");
  submit(dryrun_input(app_id, "[" + shell_role("a", "echo early; sleep 1.2; echo late") + "]"));
  wait_terminal(app_id);
  const std::vector<Line> all = read_all(*scheduler()->log_open(app_id, "{}"));
  ASSERT_EQ(all.size(), 2u) << joined(all);
  const int64_t middle = all[0].timestamp + 600000000;
  const std::vector<Line> after =
      read_all(*scheduler()->log_open(app_id, R"({"since":)" + std::to_string(middle) + "}"));
  ASSERT_EQ(after.size(), 1u) << joined(after);
  EXPECT_EQ(after[0].data, "late\n");
  const std::vector<Line> before =
      read_all(*scheduler()->log_open(app_id, R"({"until":)" + std::to_string(middle) + "}"));
  ASSERT_EQ(before.size(), 1u) << joined(before);
  EXPECT_EQ(before[0].data, "early\n");
}

TEST_F(DockerLogs, FollowReadsUntilTheContainersEnd) {
  const std::string app_id = fresh_app_id("follow");
  submit(dryrun_input(app_id, "[" +
                                  shell_role("a",
                                             "for i in 1 2 3; do echo tick$i; sleep 0.7; "
                                             "done; echo done",
                                             R"("num_replicas":2)") +
                                  "]"));
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Line> lines = read_all(*scheduler()->log_open(app_id, R"({"follow":true})"));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(lines.size(), 8u) << joined(lines);
  EXPECT_STREQ(parse(scheduler()->describe(app_id))["state"].GetString(), "SUCCEEDED");
}

// Its start failed, so the container stays "created", with the Engine's reason in State.Error:
// a follow ends there (it polled for ever, and a launch script streaming its output hung).
TEST_F(DockerLogs, AFollowOfAContainerThatCouldNotStartEnds) {
  const std::string app_id = fresh_app_id("nostart");
  submit(dryrun_input(app_id, R"([{"name":"a","image":")" + std::string(kTestImage) +
                                  R"(","entrypoint":"/no/such/program"}])"));
  std::vector<Line> lines;
  sortie_log_sink sink{&lines, collect};
  auto stream = scheduler()->log_open(app_id, R"({"follow":true})");
  bool more = true;
  for (int polls = 0; polls < 50 && more; ++polls) more = stream->next(200, LogSink(&sink));
  EXPECT_FALSE(more) << "still following after 50 polls of 200 ms";
  EXPECT_TRUE(lines.empty()) << joined(lines);
  EXPECT_STREQ(parse(scheduler()->describe(app_id))["state"].GetString(), "FAILED");
}

TEST_F(DockerLogs, ClosingAFollowStreamIsPrompt) {
  const std::string app_id = fresh_app_id("close");
  submit(dryrun_input(app_id, "[" + shell_role("a", "echo hi; sleep 300") + "]",
                      R"({"image_provider":"","cancel_grace_period":1})"));
  std::vector<Line> lines;
  sortie_log_sink sink{&lines, collect};
  auto stream = scheduler()->log_open(app_id, R"({"follow":true})");
  for (int i = 0; i < 50 && lines.empty(); ++i) stream->next(200, LogSink(&sink));
  ASSERT_EQ(lines.size(), 1u);
  const auto start = std::chrono::steady_clock::now();
  stream.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  scheduler()->cancel(app_id);
}

}  // namespace
}  // namespace sortie::docker::testing
