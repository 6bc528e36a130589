// The vertex scheduler through its C ABI against the fake Vertex AI endpoint
// (tests/vertex/fake/fake_vertex.py): submit, status through the job's states, cancel, list,
// retries with back-off, and the errors the API answers.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "vertex_test_support.hpp"

namespace sortie::vertex::testing {
namespace {

constexpr const char* kRoles =
    R"([{"name":"chief","image":"gcr.io/p/t:1","entrypoint":"python","args":["train.py"]},
        {"name":"worker","image":"gcr.io/p/t:1","entrypoint":"python","num_replicas":2,
         "resource":{"cpu":12,"gpu":1,"memMB":40000},"metadata":{"vertex.accelerator":"a100"}}])";

class VertexSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SORTIE_REQUIRE_ENGINE(have_program("python3"), "python3 is needed for the fake Vertex AI");
    ASSERT_TRUE(fake_.running());
    ::setenv("GOOGLE_OAUTH_ACCESS_TOKEN", FakeVertex::token().c_str(), 1);
  }
  void TearDown() override { ::unsetenv("GOOGLE_OAUTH_ACCESS_TOKEN"); }

  std::string cfg(const std::string& extra = "") const {
    return R"({"project":"p","endpoint":")" + fake_.url() +
           R"(","retries":3,"retry_base_delay":0.01,"request_timeout":10)" + extra + "}";
  }

  std::string submit(const SchedulerClient& scheduler, const std::string& extra_cfg = "") {
    const Result dry = scheduler.dryrun(dryrun_input("train-x1", kRoles, cfg(extra_cfg)));
    EXPECT_EQ(dry.status, SORTIE_OK) << dry.err;
    const Result scheduled = scheduler.schedule(dry.out);
    EXPECT_EQ(scheduled.status, SORTIE_OK) << scheduled.err;
    return scheduled.out;
  }

  // describe() until the app is terminal; the fake moves one state per GET.
  rapidjson::Document describe_until_terminal(const std::string& app_id,
                                              std::vector<std::string>* states = nullptr) {
    for (int i = 0; i < 20; ++i) {
      const Result result = scheduler_.describe(app_id);
      EXPECT_EQ(result.status, SORTIE_OK) << result.err;
      rapidjson::Document status = parse(result.out);
      const std::string state = status["state"].GetString();
      if (states != nullptr) states->push_back(state);
      if (state == "SUCCEEDED" || state == "FAILED" || state == "CANCELLED") return status;
    }
    ADD_FAILURE() << app_id << " never ended";
    return parse("{}");
  }

  size_t count_requests(const std::string& method, const std::string& path_prefix) {
    const rapidjson::Document seen = fake_.requests();
    size_t count = 0;
    for (const rapidjson::Value& request : seen["requests"].GetArray()) {
      count += method == request["method"].GetString() &&
               std::string(request["path"].GetString()).rfind(path_prefix, 0) == 0;
    }
    return count;
  }

  FakeVertex fake_;
  TempDir state_;
  SchedulerClient scheduler_{"vertex", state_.path()};
};

TEST_F(VertexSchedulerTest, SubmitsAndFollowsTheJobToSucceeded) {
  const std::string app_id = submit(scheduler_);
  EXPECT_EQ(app_id, "p:us-central1:1000");
  std::vector<std::string> states;
  const rapidjson::Document status = describe_until_terminal(app_id, &states);
  EXPECT_EQ(states, (std::vector<std::string>{"PENDING", "RUNNING", "SUCCEEDED"}));
  EXPECT_STREQ(status["msg"].GetString(), "");
  ASSERT_EQ(status["roles"].Size(), 2u);
  EXPECT_STREQ(status["roles"][1]["role"].GetString(), "worker");
  EXPECT_EQ(status["roles"][1]["replicas"].Size(), 2u);
  EXPECT_TRUE(status["roles"][0]["replicas"][0]["started_at"].IsInt64());
  // The create request carried the token and the exact dry-run body.
  const rapidjson::Document seen = fake_.requests();
  const rapidjson::Value& create = seen["requests"][0];
  EXPECT_STREQ(create["path"].GetString(), "/v1/projects/p/locations/us-central1/customJobs");
  EXPECT_EQ(std::string(create["authorization"].GetString()), "Bearer " + FakeVertex::token());
  EXPECT_NE(
      std::string(create["body"].GetString()).find("\"acceleratorType\":\"NVIDIA_TESLA_A100\""),
      std::string::npos);
}

TEST_F(VertexSchedulerTest, FailedJobCarriesTheApiMessage) {
  fake_.control("POST", "/_fake/next_job", R"({"states":["JOB_STATE_RUNNING","JOB_STATE_FAILED"],
      "error":{"code":3,"message":"The replica workerpool0-0 exited with a non-zero status of 1."}})");
  const rapidjson::Document status = describe_until_terminal(submit(scheduler_));
  EXPECT_STREQ(status["state"].GetString(), "FAILED");
  EXPECT_STREQ(status["msg"].GetString(),
               "The replica workerpool0-0 exited with a non-zero status of 1.");
}

TEST_F(VertexSchedulerTest, ExpiredAndPartiallySucceededJobsAreFailures) {
  fake_.control("POST", "/_fake/next_job", R"({"states":["JOB_STATE_PAUSED","JOB_STATE_UPDATING",
      "JOB_STATE_EXPIRED"]})");
  std::vector<std::string> states;
  const rapidjson::Document status = describe_until_terminal(submit(scheduler_), &states);
  EXPECT_EQ(states, (std::vector<std::string>{"PENDING", "RUNNING", "FAILED"}));
  EXPECT_NE(std::string(status["msg"].GetString()).find("expired"), std::string::npos);
}

TEST_F(VertexSchedulerTest, CancelStopsTheJob) {
  fake_.control("POST", "/_fake/next_job",
                R"({"states":["JOB_STATE_PENDING","JOB_STATE_RUNNING","JOB_STATE_RUNNING",
                    "JOB_STATE_RUNNING","JOB_STATE_SUCCEEDED"]})");
  const std::string app_id = submit(scheduler_);
  EXPECT_STREQ(parse(scheduler_.describe(app_id).out)["state"].GetString(), "PENDING");
  const Result cancelled = scheduler_.cancel(app_id);
  ASSERT_EQ(cancelled.status, SORTIE_OK) << cancelled.err;
  EXPECT_EQ(count_requests("POST", "/v1/projects/p/locations/us-central1/customJobs/1000:cancel"),
            1u);
  const rapidjson::Document status = describe_until_terminal(app_id);
  EXPECT_STREQ(status["state"].GetString(), "CANCELLED");
  // Cancelling a finished job succeeds without asking the API, which would answer 400.
  const Result again = scheduler_.cancel(app_id);
  EXPECT_EQ(again.status, SORTIE_OK) << again.err;
  EXPECT_EQ(count_requests("POST", "/v1/projects/p/locations/us-central1/customJobs/1000:cancel"),
            1u);
  EXPECT_STREQ(parse(scheduler_.describe(app_id).out)["state"].GetString(), "CANCELLED");
}

TEST_F(VertexSchedulerTest, ListsTheSessionsJobsAcrossPages) {
  FakeVertex paged({"--page-size", "2"});
  ASSERT_TRUE(paged.running());
  const std::string paged_cfg = R"({"project":"p","endpoint":")" + paged.url() + R"("})";
  for (int i = 0; i < 3; ++i) {
    const Result dry =
        scheduler_.dryrun(dryrun_input("job-" + std::to_string(i), kRoles, paged_cfg));
    ASSERT_EQ(scheduler_.schedule(dry.out).status, SORTIE_OK);
  }
  // Another session's job in the same project is not listed.
  std::string other = dryrun_input("other", kRoles, paged_cfg);
  other.replace(other.find(R"("session":"test")"), 16, R"("session":"else")");
  ASSERT_EQ(scheduler_.schedule(scheduler_.dryrun(other).out).status, SORTIE_OK);

  const Result listed = scheduler_.list(R"({"schema":"sortie.list_filter/1","session":"test"})");
  ASSERT_EQ(listed.status, SORTIE_OK) << listed.err;
  const rapidjson::Document list = parse(listed.out);
  EXPECT_STREQ(list["schema"].GetString(), "sortie.list/1");
  ASSERT_EQ(list["apps"].Size(), 3u) << listed.out;
  EXPECT_STREQ(list["apps"][0]["app_id"].GetString(), "p:us-central1:1000");
  EXPECT_STREQ(list["apps"][0]["name"].GetString(), "job-0");
  EXPECT_STREQ(list["apps"][0]["state"].GetString(), "PENDING");
  const rapidjson::Document seen = paged.requests();
  size_t list_calls = 0;
  for (const rapidjson::Value& request : seen["requests"].GetArray()) {
    const std::string path = request["path"].GetString();
    list_calls +=
        path.find("customJobs?filter=labels.sortie-session%3D%22test%22") != std::string::npos;
  }
  EXPECT_EQ(list_calls, 2u);  // two pages of two
}

TEST_F(VertexSchedulerTest, RetriesThrottledAndUnavailableAnswersWithBackOff) {
  fake_.control("POST", "/_fake/faults", R"({"method":"POST",
      "path":"/v1/projects/p/locations/us-central1/customJobs","status":429,"times":1,
      "retry_after":"0"})");
  fake_.control("POST", "/_fake/faults", R"({"method":"POST",
      "path":"/v1/projects/p/locations/us-central1/customJobs","status":503,"times":1})");
  const std::string app_id = submit(scheduler_);
  EXPECT_EQ(app_id, "p:us-central1:1000");
  EXPECT_EQ(count_requests("POST", "/v1/projects/p/locations/us-central1/customJobs"), 3u);
  for (const int status : {500, 502, 504}) {
    fake_.control("POST", "/_fake/faults",
                  R"({"method":"GET","path":"/v1/projects/p/locations/us-central1/customJobs/1000",
                      "status":)" +
                      std::to_string(status) + R"(,"times":1})");
  }
  const Result described = scheduler_.describe(app_id);
  EXPECT_EQ(described.status, SORTIE_OK) << described.err;
  EXPECT_EQ(count_requests("GET", "/v1/projects/p/locations/us-central1/customJobs/1000"), 4u);
}

TEST_F(VertexSchedulerTest, GivesUpAfterTheRetryBudget) {
  fake_.control("POST", "/_fake/faults", R"({"method":"POST",
      "path":"/v1/projects/p/locations/us-central1/customJobs","status":503,"times":100,
      "message":"The service is currently unavailable."})");
  const Result dry = scheduler_.dryrun(dryrun_input("a", kRoles, cfg()));
  const Result scheduled = scheduler_.schedule(dry.out);
  EXPECT_EQ(scheduled.status, SORTIE_UNAVAILABLE);
  EXPECT_NE(scheduled.err.find("HTTP 503 UNAVAILABLE: The service is currently unavailable. "
                               "(after 3 retries)"),
            std::string::npos)
      << scheduled.err;
  EXPECT_EQ(count_requests("POST", "/v1/projects/p/locations/us-central1/customJobs"), 4u);
}

TEST_F(VertexSchedulerTest, CreateIsNotRetriedWhenTheServiceMayHaveActed) {
  fake_.control("POST", "/_fake/faults", R"({"method":"POST",
      "path":"/v1/projects/p/locations/us-central1/customJobs","status":500,"times":1,
      "message":"Internal error encountered."})");
  const Result scheduled =
      scheduler_.schedule(scheduler_.dryrun(dryrun_input("a", kRoles, cfg())).out);
  EXPECT_EQ(scheduled.status, SORTIE_UNAVAILABLE);
  EXPECT_NE(scheduled.err.find("HTTP 500 INTERNAL: Internal error encountered."), std::string::npos)
      << scheduled.err;
  EXPECT_EQ(count_requests("POST", "/v1/projects/p/locations/us-central1/customJobs"), 1u);
}

TEST_F(VertexSchedulerTest, ApiErrorsAreSurfacedWithTheirMessage) {
  fake_.control("POST", "/_fake/faults", R"({"method":"POST",
      "path":"/v1/projects/p/locations/us-central1/customJobs","status":400,"times":1,
      "message":"Machine type \"a2-highgpu-2g\" is not supported in us-central1."})");
  const std::string request = scheduler_.dryrun(dryrun_input("a", kRoles, cfg())).out;
  const Result invalid = scheduler_.schedule(request);
  EXPECT_EQ(invalid.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(invalid.err.find("HTTP 400 INVALID_ARGUMENT: Machine type \"a2-highgpu-2g\" is not "
                             "supported in us-central1."),
            std::string::npos)
      << invalid.err;
  fake_.control("POST", "/_fake/faults", R"({"method":"POST",
      "path":"/v1/projects/p/locations/us-central1/customJobs","status":403,"times":1,
      "message":"Permission 'aiplatform.customJobs.create' denied."})");
  const Result denied = scheduler_.schedule(request);
  EXPECT_EQ(denied.status, SORTIE_PERMISSION_DENIED);
  EXPECT_NE(denied.err.find("roles/aiplatform.user"), std::string::npos) << denied.err;
  const std::string app_id = submit(scheduler_);
  fake_.control("POST", "/_fake/faults", R"({"method":"GET",
      "path":"/v1/projects/p/locations/us-central1/customJobs/1000","status":404,"times":1,
      "message":"CustomJob \"projects/p/locations/us-central1/customJobs/1000\" not found."})");
  const Result missing = scheduler_.describe(app_id);
  EXPECT_EQ(missing.status, SORTIE_NOT_FOUND);
  EXPECT_NE(missing.err.find("HTTP 404 NOT_FOUND: CustomJob"), std::string::npos) << missing.err;
  const Result malformed = scheduler_.describe("not-a-vertex-id");
  EXPECT_EQ(malformed.status, SORTIE_NOT_FOUND);
  EXPECT_NE(malformed.err.find("PROJECT:LOCATION:JOB_ID"), std::string::npos);
}

TEST_F(VertexSchedulerTest, RejectedTokenIsRefreshedOnceAndNeverPrinted) {
  ::setenv("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.wrong-secret", 1);
  const Result dry = scheduler_.dryrun(dryrun_input("a", kRoles, cfg()));
  EXPECT_EQ(dry.out.find("ya29.wrong-secret"), std::string::npos);
  const Result scheduled = scheduler_.schedule(dry.out);
  EXPECT_EQ(scheduled.status, SORTIE_UNAUTHENTICATED);
  EXPECT_NE(scheduled.err.find("the access token from GOOGLE_OAUTH_ACCESS_TOKEN was refused"),
            std::string::npos)
      << scheduled.err;
  EXPECT_EQ(scheduled.err.find("ya29.wrong-secret"), std::string::npos);
  EXPECT_EQ(count_requests("POST", "/v1/projects/p/locations/us-central1/customJobs"), 2u);
}

TEST_F(VertexSchedulerTest, AnotherProcessTakesTheAppOverFromItsId) {
  const std::string app_id = submit(scheduler_);
  // A new scheduler instance with the same state directory: the record names the endpoint.
  SchedulerClient later("caip", state_.path());
  const Result described = later.describe(app_id);
  ASSERT_EQ(described.status, SORTIE_OK) << described.err;
  EXPECT_STREQ(parse(described.out)["app_id"].GetString(), app_id.c_str());
}

TEST_F(VertexSchedulerTest, LogsPointAtCloudLogging) {
  const Result logs = scheduler_.log_open("p:us-central1:1234");
  EXPECT_EQ(logs.status, SORTIE_UNIMPLEMENTED);
  EXPECT_NE(logs.err.find("logs are in Cloud Logging: https://console.cloud.google.com/logs/"
                          "query;query=resource.type%3D%22ml_job%22%20resource.labels.job_id%3D%"
                          "221234%22?project=p"),
            std::string::npos)
      << logs.err;
}

TEST_F(VertexSchedulerTest, RunOptionsDescribeTypesDefaultsAndRequiredFlags) {
  const Result result = scheduler_.run_options();
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document options = parse(result.out);
  EXPECT_STREQ(options["schema"].GetString(), "sortie.runopts/1");
  bool saw_project = false;
  for (const rapidjson::Value& option : options["options"].GetArray()) {
    const std::string name = option["name"].GetString();
    EXPECT_FALSE(std::string(option["help"].GetString()).empty()) << name;
    if (name == "project") {
      saw_project = true;
      EXPECT_TRUE(option["required"].GetBool());
    }
    if (name == "location") {
      EXPECT_STREQ(option["default"].GetString(), "us-central1");
    }
    if (name == "retries") {
      EXPECT_EQ(option["default"].GetInt(), 5);
    }
  }
  EXPECT_TRUE(saw_project);
}

}  // namespace
}  // namespace sortie::vertex::testing
