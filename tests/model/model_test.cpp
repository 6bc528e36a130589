#include <gtest/gtest.h>

#include <regex>
#include <sortie/model/error.hpp>
#include <sortie/model/model.hpp>
#include <string>

#include "model_test_support.hpp"

namespace sortie::model {
namespace {

using testing::error_of;

TEST(AppStateTest, ToStringGivesTheSdkName) {
  const std::vector<std::pair<AppState, std::string>> states = {
      {AppState::kUnsubmitted, "UNSUBMITTED"}, {AppState::kSubmitted, "SUBMITTED"},
      {AppState::kPending, "PENDING"},         {AppState::kRunning, "RUNNING"},
      {AppState::kSucceeded, "SUCCEEDED"},     {AppState::kFailed, "FAILED"},
      {AppState::kCancelled, "CANCELLED"},     {AppState::kUnknown, "UNKNOWN"}};
  for (const auto& [state, name] : states) {
    EXPECT_EQ(to_string(state), name);
  }
}

TEST(AppStateTest, OnlySucceededFailedCancelledAreTerminal) {
  EXPECT_TRUE(is_terminal(AppState::kSucceeded));
  EXPECT_TRUE(is_terminal(AppState::kFailed));
  EXPECT_TRUE(is_terminal(AppState::kCancelled));
  EXPECT_FALSE(is_terminal(AppState::kRunning));
  EXPECT_FALSE(is_terminal(AppState::kPending));
  EXPECT_FALSE(is_terminal(AppState::kUnknown));
  EXPECT_FALSE(is_terminal(AppState::kUnsubmitted));
  EXPECT_FALSE(is_terminal(AppState::kSubmitted));
}

TEST(MakeAppIdTest, SanitizesTheNameAndAddsTenBase36Characters) {
  const std::string id = make_app_id("My_Trainer.v2");
  ASSERT_EQ(id.size(), std::string("my-trainer-v2-").size() + 10);
  EXPECT_EQ(id.substr(0, 14), "my-trainer-v2-");
  EXPECT_TRUE(std::regex_match(id.substr(14), std::regex("[0-9a-z]{10}"))) << id;
}

TEST(MakeAppIdTest, IsADns1123LabelForAnyName) {
  const std::regex dns1123("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  for (const std::string& name : std::vector<std::string>{
           "", "---", "__x__", "UPPER", std::string(200, 'a'), "a" + std::string(60, '-') + "b",
           std::string(51, 'b') + "-cccc", "été"}) {
    const std::string id = make_app_id(name);
    EXPECT_LE(id.size(), 63u) << name;
    EXPECT_TRUE(std::regex_match(id, dns1123)) << id;
  }
  EXPECT_EQ(make_app_id("").substr(0, 4), "app-");
  EXPECT_EQ(make_app_id("---").substr(0, 4), "app-");
  EXPECT_EQ(make_app_id(std::string(200, 'a')).size(), 63u);
  // A name cut at its limit does not end in '-' before the suffix.
  EXPECT_EQ(make_app_id(std::string(51, 'b') + "-cccc").substr(0, 52), std::string(51, 'b') + "-");
}

TEST(MakeAppIdTest, TwoIdsDiffer) { EXPECT_NE(make_app_id("echo"), make_app_id("echo")); }

TEST(AppHandleTest, ParsesAndPrints) {
  const AppHandle handle = parse_app_handle("local_cwd://default/echo-k3x9q2a0b1");
  EXPECT_EQ(handle.scheduler, "local_cwd");
  EXPECT_EQ(handle.session, "default");
  EXPECT_EQ(handle.app_id, "echo-k3x9q2a0b1");
  EXPECT_EQ(handle.str(), "local_cwd://default/echo-k3x9q2a0b1");
}

TEST(AppHandleTest, AcceptsAnEmptySession) {
  const AppHandle handle = parse_app_handle("docker:///trainer-1");
  EXPECT_EQ(handle.scheduler, "docker");
  EXPECT_EQ(handle.session, "");
  EXPECT_EQ(handle.app_id, "trainer-1");
  EXPECT_EQ(handle.str(), "docker:///trainer-1");
}

TEST(AppHandleTest, RefusesMalformedHandlesShowingTheExpectedForm) {
  const std::string form = "expected SCHEDULER://SESSION/APP_ID";
  const std::string no_scheme = error_of([] { parse_app_handle("echo-123"); });
  EXPECT_NE(no_scheme.find("'echo-123' is not an app handle (no '://')"), std::string::npos);
  EXPECT_NE(no_scheme.find(form), std::string::npos);
  EXPECT_NE(error_of([] { parse_app_handle("://s/id"); }).find("(SCHEDULER is empty)"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_app_handle("local://s/"); }).find("(APP_ID is empty)"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_app_handle("local://id"); }).find("(no '/' before APP_ID)"),
            std::string::npos);
}

}  // namespace
}  // namespace sortie::model
