#include "app_records.hpp"

#include <gtest/gtest.h>

#include <sortie/plugin.hpp>

#include "vertex_test_support.hpp"

namespace sortie::vertex {
namespace {

TEST(VertexAppRecordsTest, AppIdsNameTheJobByThemselves) {
  EXPECT_EQ(app_id_for_job("projects/p/locations/us-central1/customJobs/42"), "p:us-central1:42");
  EXPECT_EQ(job_name_for_app("p:us-central1:42"), "projects/p/locations/us-central1/customJobs/42");
  // Domain-scoped project ids contain ':'.
  EXPECT_EQ(job_name_for_app("example.com:p:us-central1:42"),
            "projects/example.com:p/locations/us-central1/customJobs/42");
  EXPECT_EQ(parent_of_job("projects/p/locations/l/customJobs/1"), "projects/p/locations/l");
  for (const char* bad : {"42", "p:42", ":l:42", "p:l:", "p:../x:1", "p/l:x:1"}) {
    try {
      job_name_for_app(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::kNotFound) << bad;
    }
  }
  EXPECT_THROW(app_id_for_job("projects/p/customJobs/1"), Error);
}

TEST(VertexAppRecordsTest, RecordsKeepTheConnectionAndDefaultsApplyWithout) {
  testing::TempDir dir;
  AppRecords records(dir.path());
  Connection connection;
  connection.endpoint = "http://127.0.0.1:9";
  connection.access_token_command = "print-token";
  connection.retries = 2;
  records.save({"p:europe-west4:7", "projects/p/locations/europe-west4/customJobs/7", connection});
  const AppRecord saved = records.load("p:europe-west4:7");
  EXPECT_EQ(saved.job_name, "projects/p/locations/europe-west4/customJobs/7");
  EXPECT_EQ(saved.connection.endpoint, "http://127.0.0.1:9");
  EXPECT_EQ(saved.connection.access_token_command, "print-token");
  EXPECT_EQ(saved.connection.retries, 2);
  ASSERT_EQ(records.all().size(), 1u);
  // An app this machine never submitted: the regional endpoint and default credentials.
  const AppRecord other = records.load("q:asia-east1:8");
  EXPECT_EQ(other.connection.endpoint, "https://asia-east1-aiplatform.googleapis.com");
  EXPECT_EQ(other.connection.access_token_command, "gcloud auth print-access-token");
}

}  // namespace
}  // namespace sortie::vertex
