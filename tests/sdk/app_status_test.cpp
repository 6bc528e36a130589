#include <gtest/gtest.h>

#include <sortie/app_status.hpp>

namespace sortie {
namespace {

TEST(AppStatusTest, WritesEveryMember) {
  AppStatus status;
  status.app_id = "a-1";
  status.state = AppState::kRunning;
  status.num_restarts = 2;
  status.msg = "m";
  status.ui_url = "file:///x";
  status.structured_error_msg = "e";
  status.metadata = {{"session", R"("default")"}, {"pid", "42"}};
  ReplicaStatus replica;
  replica.id = 1;
  replica.state = AppState::kSucceeded;
  replica.pid = 7;
  replica.exit_code = 0;
  replica.hostname = "h";
  replica.restarts = 1;
  replica.started_at = 10;
  replica.msg = "\"quoted\"";
  status.roles = {{"trainer", {replica}}};
  EXPECT_EQ(write_status(status),
            R"({"schema":"sortie.status/1","app_id":"a-1","state":"RUNNING","num_restarts":2,)"
            R"("msg":"m","ui_url":"file:///x","structured_error_msg":"e","roles":[{"role":)"
            R"("trainer","replicas":[{"id":1,"state":"SUCCEEDED","pid":7,"exit_code":0,)"
            R"("hostname":"h","restarts":1,"started_at":10,"finished_at":null,)"
            R"("msg":"\"quoted\""}]}],"metadata":{"session":"default","pid":42}})");
}

TEST(AppStatusTest, DefaultsToAnUnknownAppWithNothingKnown) {
  EXPECT_EQ(write_status(AppStatus{}),
            R"({"schema":"sortie.status/1","app_id":"","state":"UNKNOWN","num_restarts":0,)"
            R"("msg":"","ui_url":"","structured_error_msg":"","roles":[],"metadata":{}})");
}

TEST(AppStatusTest, QuotesMetadataStrings) {
  EXPECT_EQ(json_string("a \"b\"\n"), R"("a \"b\"\n")");
}

}  // namespace
}  // namespace sortie
