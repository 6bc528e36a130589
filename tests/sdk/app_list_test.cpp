#include <gtest/gtest.h>

#include <sortie/app_list.hpp>
#include <sortie/plugin.hpp>

namespace sortie {
namespace {

TEST(AppListTest, ReadsTheFilter) {
  EXPECT_EQ(read_list_filter("").session, "");
  EXPECT_EQ(read_list_filter(R"({"schema":"sortie.list_filter/1"})").session, "");
  EXPECT_EQ(read_list_filter(R"({"schema":"sortie.list_filter/1","session":"s"})").session, "s");
}

TEST(AppListTest, NamesTheFilterFieldAtFault) {
  try {
    read_list_filter(R"({"session":1})");
    FAIL() << "accepted a numeric session";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    EXPECT_STREQ(e.what(), "session: expected a string, got 1");
  }
}

TEST(AppListTest, WritesTheList) {
  EXPECT_EQ(write_app_list({}), R"({"schema":"sortie.list/1","apps":[]})");
  EXPECT_EQ(write_app_list({{"a-1", "a", AppState::kFailed}, {"b-2", "b", AppState::kRunning}}),
            R"({"schema":"sortie.list/1","apps":[{"app_id":"a-1","name":"a","state":"FAILED"},)"
            R"({"app_id":"b-2","name":"b","state":"RUNNING"}]})");
}

TEST(AppListTest, WritesTheFilter) {
  ListFilter filter;
  filter.session = "exp";
  const std::string json = write_list_filter(filter);
  EXPECT_EQ(json, R"({"schema":"sortie.list_filter/1","session":"exp"})");
  EXPECT_EQ(read_list_filter(json).session, "exp");
}

}  // namespace
}  // namespace sortie
