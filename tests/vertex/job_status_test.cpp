#include "job_status.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sortie/plugin.hpp>

namespace sortie::vertex {
namespace {

TEST(VertexJobStatusTest, EveryJobStateHasAnAppState) {
  // All values of google.cloud.aiplatform.v1.JobState (job_state.proto).
  const std::pair<const char*, const char*> expected[] = {
      {"JOB_STATE_UNSPECIFIED", "UNKNOWN"}, {"JOB_STATE_QUEUED", "PENDING"},
      {"JOB_STATE_PENDING", "PENDING"},     {"JOB_STATE_RUNNING", "RUNNING"},
      {"JOB_STATE_SUCCEEDED", "SUCCEEDED"}, {"JOB_STATE_FAILED", "FAILED"},
      {"JOB_STATE_CANCELLING", "RUNNING"},  {"JOB_STATE_CANCELLED", "CANCELLED"},
      {"JOB_STATE_PAUSED", "PENDING"},      {"JOB_STATE_EXPIRED", "FAILED"},
      {"JOB_STATE_UPDATING", "RUNNING"},    {"JOB_STATE_PARTIALLY_SUCCEEDED", "FAILED"},
  };
  for (const auto& [job_state, app_state] : expected) {
    EXPECT_EQ(app_state_name(app_state_for(job_state)), app_state) << job_state;
  }
  EXPECT_EQ(app_state_for("JOB_STATE_FROM_THE_FUTURE"), AppState::kUnknown);
  EXPECT_EQ(app_state_for(""), AppState::kUnknown);
}

TEST(VertexJobStatusTest, ParsesRfc3339Timestamps) {
  EXPECT_EQ(parse_rfc3339_ns("1970-01-01T00:00:01Z"), 1000000000);
  EXPECT_EQ(parse_rfc3339_ns("2024-01-01T00:00:00.5Z"), 1704067200500000000);
  EXPECT_EQ(parse_rfc3339_ns("2024-01-01T01:00:00.000000001+01:00"), 1704067200000000001);
  EXPECT_EQ(parse_rfc3339_ns("2024-01-01 00:00:00"), std::nullopt);
  EXPECT_EQ(parse_rfc3339_ns("yesterday"), std::nullopt);
}

TEST(VertexJobStatusTest, StatusCarriesTheApiErrorAndOneRolePerPool) {
  rapidjson::Document job;
  job.Parse(R"({"name":"projects/p/locations/us-central1/customJobs/42",
      "state":"JOB_STATE_FAILED","startTime":"2024-01-01T00:00:00Z","endTime":"2024-01-01T00:10:00Z",
      "error":{"code":3,"message":"Replica workerpool0-0 exited with a non-zero status of 1."},
      "jobSpec":{"workerPoolSpecs":[
        {"replicaCount":"1","containerSpec":{"imageUri":"i","env":[{"name":"SORTIE_ROLE_NAME","value":"chief"}]}},
        {"replicaCount":"3","containerSpec":{"imageUri":"i"}}]}})");
  rapidjson::Document status;
  status.Parse(status_payload("p:us-central1:42", job).c_str());
  ASSERT_FALSE(status.HasParseError());
  EXPECT_STREQ(status["schema"].GetString(), "sortie.status/1");
  EXPECT_STREQ(status["app_id"].GetString(), "p:us-central1:42");
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_STREQ(status["msg"].GetString(),
               "Replica workerpool0-0 exited with a non-zero status of 1.");
  EXPECT_NE(std::string(status["structured_error_msg"].GetString()).find("\"code\":3"),
            std::string::npos);
  EXPECT_STREQ(status["ui_url"].GetString(),
               "https://console.cloud.google.com/ai/platform/locations/us-central1/training/42"
               "?project=p");
  ASSERT_EQ(status["roles"].Size(), 2u);
  EXPECT_STREQ(status["roles"][0]["role"].GetString(), "chief");
  EXPECT_STREQ(status["roles"][1]["role"].GetString(), "workerpool1");
  ASSERT_EQ(status["roles"][1]["replicas"].Size(), 3u);
  const rapidjson::Value& replica = status["roles"][1]["replicas"][2];
  EXPECT_EQ(replica["id"].GetInt(), 2);
  EXPECT_STREQ(replica["state"].GetString(), "FAILED");
  EXPECT_EQ(replica["started_at"].GetInt64(), 1704067200000000000);
  EXPECT_EQ(replica["finished_at"].GetInt64(), 1704067800000000000);
  EXPECT_STREQ(status["metadata"]["vertex.job_state"].GetString(), "JOB_STATE_FAILED");
}

TEST(VertexJobStatusTest, StatesThatNeedWordsGetThem) {
  rapidjson::Document job;
  job.Parse(R"({"name":"projects/p/locations/l/customJobs/1","state":"JOB_STATE_EXPIRED"})");
  rapidjson::Document status;
  status.Parse(status_payload("p:l:1", job).c_str());
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_NE(std::string(status["msg"].GetString()).find("expired"), std::string::npos);
  job.Parse(R"({"name":"projects/p/locations/l/customJobs/1","state":"JOB_STATE_PAUSED"})");
  status.Parse(status_payload("p:l:1", job).c_str());
  EXPECT_STREQ(status["state"].GetString(), "PENDING");
  EXPECT_NE(std::string(status["msg"].GetString()).find("paused"), std::string::npos);
}

}  // namespace
}  // namespace sortie::vertex
