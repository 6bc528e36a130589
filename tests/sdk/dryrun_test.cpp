#include <gtest/gtest.h>

#include <sortie/dryrun.hpp>
#include <sortie/plugin.hpp>

namespace sortie {
namespace {

std::string error_of(void (*read)(std::string_view), std::string_view json) {
  try {
    read(json);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "no error";
}

TEST(DryrunTest, WritesAndReadsBack) {
  const std::string json = write_dryrun({"a-1", R"({"roles":[1]})", "runs a"});
  EXPECT_EQ(
      json,
      R"({"schema":"sortie.dryrun/1","app_id":"a-1","request":{"roles":[1]},"text":"runs a"})");
  const Dryrun dryrun = read_dryrun(json);
  EXPECT_EQ(dryrun.app_id, "a-1");
  EXPECT_EQ(dryrun.request_json, R"({"roles":[1]})");
  EXPECT_EQ(dryrun.text, "runs a");
  EXPECT_EQ(write_dryrun({"b", "[]", ""}),
            R"({"schema":"sortie.dryrun/1","app_id":"b","request":[]})");
}

TEST(DryrunTest, NamesTheMemberAtFault) {
  const auto read = [](std::string_view json) { read_dryrun(json); };
  EXPECT_EQ(error_of(read, R"({"request":{}})"), "app_id: is required");
  EXPECT_EQ(error_of(read, R"({"app_id":"a"})"), "request: is required");
}

TEST(SchedulerConfigTest, ReadsEveryMember) {
  const SchedulerConfig config = read_scheduler_config(
      R"({"schema":"sortie.scheduler_config/1","scheduler":"s","session":"x","state_dir":"/d"})");
  EXPECT_EQ(config.scheduler, "s");
  EXPECT_EQ(config.session, "x");
  EXPECT_EQ(config.state_dir, "/d");
  EXPECT_EQ(read_scheduler_config(R"({"state_dir":"/d"})").session, "default");
  const auto read = [](std::string_view json) { read_scheduler_config(json); };
  EXPECT_EQ(error_of(read, "{}"), "state_dir: is required");
}

TEST(SchedulerConfigTest, WritesWhatItReads) {
  SchedulerConfig config;
  config.scheduler = "local_cwd";
  config.session = "s";
  config.state_dir = "/state/local_cwd";
  const std::string json = write_scheduler_config(config);
  EXPECT_EQ(json, R"({"schema":"sortie.scheduler_config/1","scheduler":"local_cwd","session":"s",)"
                  R"("state_dir":"/state/local_cwd"})");
  const SchedulerConfig back = read_scheduler_config(json);
  EXPECT_EQ(back.scheduler, "local_cwd");
  EXPECT_EQ(back.session, "s");
  EXPECT_EQ(back.state_dir, "/state/local_cwd");
}

}  // namespace
}  // namespace sortie
