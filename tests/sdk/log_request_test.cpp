#include <gtest/gtest.h>

#include <sortie/log_request.hpp>
#include <sortie/plugin.hpp>

namespace sortie {
namespace {

std::string read_error(const std::string& json) {
  try {
    read_log_request(json);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "no error";
}

TEST(LogRequestTest, ReadsEveryMember) {
  const LogRequest request = read_log_request(
      R"({"schema":"sortie.log_request/1","role":"trainer","replica":1,"streams":"stderr",)"
      R"("since":100,"until":200,"tail":5,"follow":true})");
  EXPECT_EQ(request.role, "trainer");
  EXPECT_EQ(request.replica, 1);
  EXPECT_EQ(request.streams, LogStreams::kStderr);
  EXPECT_EQ(request.since_ns, 100);
  EXPECT_EQ(request.until_ns, 200);
  EXPECT_EQ(request.tail, 5);
  EXPECT_TRUE(request.follow);
}

TEST(LogRequestTest, AnEmptyOrNullRequestAsksForEverything) {
  for (const std::string& json :
       {std::string(), std::string(R"({"schema":"sortie.log_request/1","role":null,)"
                                   R"("replica":null,"since":null,"until":null})")}) {
    const LogRequest request = read_log_request(json);
    EXPECT_TRUE(request.selects("any", 7)) << json;
    EXPECT_TRUE(request.in_window(-1)) << json;
    EXPECT_TRUE(request.wants_stream(SORTIE_STREAM_STDOUT)) << json;
    EXPECT_TRUE(request.wants_stream(SORTIE_STREAM_STDERR)) << json;
    EXPECT_EQ(log_streams_name(request.streams), "combined");
    EXPECT_FALSE(request.follow || request.tail || request.replica);
  }
}

TEST(LogRequestTest, SelectsRolesReplicasStreamsAndTimes) {
  const LogRequest request = read_log_request(
      R"({"role":"trainer","replica":0,"streams":"stdout","since":10,"until":20})");
  EXPECT_TRUE(request.selects("trainer", 0));
  EXPECT_FALSE(request.selects("trainer", 1));
  EXPECT_FALSE(request.selects("reader", 0));
  EXPECT_TRUE(request.wants_stream(SORTIE_STREAM_STDOUT));
  EXPECT_FALSE(request.wants_stream(SORTIE_STREAM_STDERR));
  EXPECT_FALSE(request.in_window(9));
  EXPECT_TRUE(request.in_window(10));
  EXPECT_TRUE(request.in_window(20));
  EXPECT_FALSE(request.in_window(21));
}

// The metrics file is a stream of its own: asked for by name, never part of combined.
TEST(LogRequestTest, TheMetricsStreamIsAskedForByNameOnly) {
  const LogRequest metrics = read_log_request(R"({"streams":"metrics"})");
  EXPECT_EQ(metrics.streams, LogStreams::kMetrics);
  EXPECT_EQ(log_streams_name(metrics.streams), "metrics");
  EXPECT_TRUE(metrics.wants_stream(SORTIE_STREAM_METRICS));
  EXPECT_FALSE(metrics.wants_stream(SORTIE_STREAM_STDOUT));
  const LogRequest combined = read_log_request(R"({"streams":"combined"})");
  EXPECT_FALSE(combined.wants_stream(SORTIE_STREAM_METRICS));
  EXPECT_TRUE(combined.wants_stream(SORTIE_STREAM_STDERR));
}

TEST(LogRequestTest, ErrorsNameTheMember) {
  EXPECT_EQ(read_error(R"({"replica":"0"})"), R"(replica: expected an integer, got "0")");
  EXPECT_EQ(read_error(R"({"replica":-1})"), "replica: must be an integer >= 0");
  EXPECT_EQ(read_error(R"({"streams":"both"})"),
            R"(streams: expected "stdout", "stderr", "combined" or "metrics", got "both")");
  EXPECT_EQ(read_error(R"({"tail":-2})"), "tail: must be an integer >= 0");
  EXPECT_EQ(read_error(R"({"follow":"yes"})"), R"(follow: expected true or false, got "yes")");
  EXPECT_EQ(read_error("[]"), "sortie.log_request/1: expected a JSON object");
}

TEST(LogRequestTest, WritesWhatItReads) {
  LogRequest request;
  EXPECT_EQ(write_log_request(request),
            R"({"schema":"sortie.log_request/1","streams":"combined","follow":false})");
  request.role = "trainer";
  request.replica = 1;
  request.streams = LogStreams::kStderr;
  request.since_ns = 10;
  request.until_ns = 20;
  request.tail = 5;
  request.follow = true;
  const std::string json = write_log_request(request);
  EXPECT_EQ(json,
            R"({"schema":"sortie.log_request/1","role":"trainer","replica":1,"streams":"stderr",)"
            R"("since":10,"until":20,"tail":5,"follow":true})");
  const LogRequest back = read_log_request(json);
  EXPECT_EQ(back.role, "trainer");
  EXPECT_EQ(back.replica, 1);
  EXPECT_EQ(back.streams, LogStreams::kStderr);
  EXPECT_EQ(back.since_ns, 10);
  EXPECT_EQ(back.until_ns, 20);
  EXPECT_EQ(back.tail, 5);
  EXPECT_TRUE(back.follow);
}

}  // namespace
}  // namespace sortie
