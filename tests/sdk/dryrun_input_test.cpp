#include <gtest/gtest.h>

#include <sortie/dryrun_input.hpp>
#include <sortie/plugin.hpp>

namespace sortie {
namespace {

constexpr const char* kApp = R"({"name":"a","roles":[{"name":"r","entrypoint":"e"}]})";

std::string input_with(const std::string& members) {
  return R"({"schema":"sortie.dryrun_input/1","app":)" + std::string(kApp) + members + "}";
}

std::string error_of(const std::string& json) {
  try {
    read_dryrun_input(json);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "no error";
}

TEST(DryrunInputTest, ReadsEveryMember) {
  const DryrunInput input = read_dryrun_input(input_with(
      R"(,"app_id":"a-1","session":"s","cfg":{"log_dir":"/x","n":2},
      "images":{"r":{"img_root":"/root","cwd":"/root/w","image":"ws:1"},"q":{"img_root":"/q"}})"));
  EXPECT_EQ(input.app.name, "a");
  EXPECT_EQ(input.app_json, kApp);
  ASSERT_EQ(input.app.roles.size(), 1U);
  EXPECT_EQ(input.app_id, "a-1");
  EXPECT_EQ(input.session, "s");
  EXPECT_EQ(input.cfg_json, R"({"log_dir":"/x","n":2})");
  ASSERT_NE(input.image_of("r"), nullptr);
  EXPECT_EQ(input.image_of("r")->img_root, "/root");
  EXPECT_EQ(input.image_of("r")->cwd, "/root/w");
  EXPECT_EQ(input.image_of("r")->image, "ws:1");
  EXPECT_EQ(input.image_of("q")->cwd, "/q");  // defaults to img_root
  EXPECT_EQ(input.image_of("q")->image, "");
  EXPECT_EQ(input.image_of("z"), nullptr);
}

TEST(DryrunInputTest, DefaultsWhatIsAbsent) {
  const DryrunInput input = read_dryrun_input(input_with(""));
  EXPECT_EQ(input.app_id, "");
  EXPECT_EQ(input.session, "");
  EXPECT_EQ(input.cfg_json, "{}");
  EXPECT_TRUE(input.images.empty());
}

TEST(DryrunInputTest, NamesTheFieldPathOfEachError) {
  EXPECT_EQ(error_of("[]"), "sortie.dryrun_input/1: expected a JSON object");
  EXPECT_EQ(error_of(R"({"app_id":"x"})"), "app: is required");
  EXPECT_EQ(error_of(input_with(R"(,"app_id":7)")), "app_id: expected a string, got 7");
  EXPECT_EQ(error_of(input_with(R"(,"app_id":"x","session":1)")),
            "session: expected a string, got 1");
  EXPECT_EQ(error_of(input_with(R"(,"app_id":"x","cfg":[])")),
            "cfg: expected an object, got an array");
  EXPECT_EQ(error_of(input_with(R"(,"app_id":"x","images":{"r":1})")),
            "images.r: expected an object, got 1");
  EXPECT_EQ(error_of(input_with(R"(,"app_id":"x","images":{"r":{"img_root":2}})")),
            "images.r.img_root: expected a string, got 2");
  EXPECT_EQ(error_of(R"({"app_id":"x","app":{"name":"a","roles":[{"name":"r"}]}})"),
            "roles[0].entrypoint: is required when the role has no image");
}

TEST(DryrunInputTest, WritesWhatItReads) {
  DryrunInput input =
      read_dryrun_input(input_with(R"(,"app_id":"a-1","session":"s","cfg":{"n":2})"));
  EXPECT_EQ(write_dryrun_input(input), R"({"schema":"sortie.dryrun_input/1","app":)" +
                                           write_appdef(input.app) +
                                           R"(,"cfg":{"n":2},"app_id":"a-1","session":"s"})");
  input.images = {{"r", read_provided_image(R"({"schema":"sortie.image/1","img_root":"/w"})")}};
  const DryrunInput back = read_dryrun_input(write_dryrun_input(input));
  ASSERT_NE(back.image_of("r"), nullptr);
  EXPECT_EQ(back.image_of("r")->img_root, "/w");
  EXPECT_EQ(back.image_of("r")->cwd, "/w");  // defaults to img_root
  EXPECT_EQ(back.image_of("r")->image, "");
  EXPECT_EQ(back.cfg_json, R"({"n":2})");
  try {
    read_provided_image(R"({"schema":"sortie.image/1","img_root":1})");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "img_root: expected a string, got 1");
  }
}

}  // namespace
}  // namespace sortie
