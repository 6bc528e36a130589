#include <gtest/gtest.h>

#include <sortie/app_status.hpp>
#include <sortie/error.hpp>

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

std::string read_error(const std::string& json) {
  try {
    read_status(json);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "no error";
}

TEST(AppStatusTest, ReadsBackWhatItWrites) {
  AppStatus status;
  status.app_id = "a-1";
  status.state = AppState::kFailed;
  status.num_restarts = 3;
  status.msg = "m";
  status.metadata = {{"session", R"("default")"}, {"list", "[1,2]"}};
  ReplicaStatus replica;
  replica.id = 2;
  replica.state = AppState::kFailed;
  replica.exit_code = -9;
  replica.finished_at = 20;
  status.roles = {{"trainer", {replica}}};
  const AppStatus back = read_status(write_status(status));
  EXPECT_EQ(back.app_id, "a-1");
  EXPECT_EQ(back.state, AppState::kFailed);
  EXPECT_EQ(back.num_restarts, 3);
  ASSERT_EQ(back.roles.size(), 1u);
  ASSERT_EQ(back.roles[0].replicas.size(), 1u);
  EXPECT_EQ(back.roles[0].replicas[0].id, 2);
  EXPECT_EQ(back.roles[0].replicas[0].exit_code, -9);
  EXPECT_EQ(back.roles[0].replicas[0].pid, std::nullopt);
  EXPECT_EQ(back.roles[0].replicas[0].finished_at, 20);
  EXPECT_EQ(back.metadata, status.metadata);
  EXPECT_EQ(write_status(back), write_status(status));
}

TEST(AppStatusTest, ReadingNamesTheFieldAtFault) {
  EXPECT_EQ(read_error(R"({"app_id":"x","state":"DONE"})"),
            R"(state: expected one of UNSUBMITTED, SUBMITTED, PENDING, RUNNING, SUCCEEDED, )"
            R"(FAILED, CANCELLED, UNKNOWN, got "DONE")");
  EXPECT_EQ(read_error(R"({"app_id":"x"})"), "state: is required");
  EXPECT_EQ(read_error(R"({"state":"RUNNING"})"), "app_id: is required");
  EXPECT_EQ(read_error(R"({"app_id":"x","state":"RUNNING",)"
                       R"("roles":[{"role":"r","replicas":[{"id":0,"pid":-1}]}]})"),
            "roles[0].replicas[0].pid: must be an integer >= 0");
  EXPECT_EQ(read_error(R"({"app_id":"x","state":"RUNNING",)"
                       R"("roles":[{"role":"r","replicas":[{"exit_code":1.5}]}]})"),
            "roles[0].replicas[0].exit_code: expected an integer, got 1.5");
  EXPECT_EQ(read_error(R"({"schema":"sortie.list/1"})"),
            R"(schema: expected "sortie.status/1", got "sortie.list/1" (a payload of another )"
            "kind or major version)");
}

TEST(AppStatusTest, QuotesMetadataStrings) {
  EXPECT_EQ(json_string("a \"b\"\n"), R"("a \"b\"\n")");
}

}  // namespace
}  // namespace sortie
