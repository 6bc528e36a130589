#include "run_option_values.hpp"

#include <gtest/gtest.h>

#include <sortie/error.hpp>

#include "json_fields.hpp"

namespace sortie {
namespace {

constexpr RunOptionSpec kTable[] = {
    {"name", "str", "null", "h", RunOptionEffect::kNone},
    {"count", "int", "null", "h", RunOptionEffect::kNone},
    {"ratio", "float", "null", "h", RunOptionEffect::kNone},
    {"on", "bool", "false", "h", RunOptionEffect::kNone},
    {"items", "list", "null", "h", RunOptionEffect::kNone},
    {"labels", "dict", "null", "h", RunOptionEffect::kNone},
    {"project", "str", "null", "h", RunOptionEffect::kNone, kRunOptionRequired},
};

// The error reading `cfg` (with project set) raises when `read` runs, or "" when none.
std::string error_of(
    const std::string& members,
    void (*read)(const RunOptionValues&) = [](const RunOptionValues&) {}) {
  const rapidjson::Document cfg = parse_object(
      R"({"project":"p")" + std::string(members.empty() ? "" : ",") + members + "}", "cfg");
  try {
    read(RunOptionValues(&cfg, kTable, "test"));
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kInvalidArgument);
    return error.what();
  }
  return "";
}

TEST(PluginsCommonRunOptionValues, GivenValuesAndFallbacks) {
  const rapidjson::Document cfg =
      parse_object(R"({"project":"p","name":"n","count":2.0,"ratio":1,"on":true,"items":["a","b"],)"
                   R"("labels":{"k":"v","a":"b"}})",
                   "cfg");
  const RunOptionValues values(&cfg, kTable, "test");
  EXPECT_EQ(values.string("name"), "n");
  EXPECT_EQ(values.integer("count", 7), 2);
  EXPECT_DOUBLE_EQ(values.number("ratio", 0.5), 1.0);
  EXPECT_TRUE(values.boolean("on", false));
  EXPECT_EQ(values.string_list("items"), (std::vector<std::string>{"a", "b"}));
  const std::vector<std::pair<std::string, std::string>> labels = {{"k", "v"}, {"a", "b"}};
  EXPECT_EQ(values.string_map("labels"), labels);

  const rapidjson::Document only_project = parse_object(R"({"project":"p","name":null})", "cfg");
  const RunOptionValues defaults(&only_project, kTable, "test");
  EXPECT_FALSE(defaults.has("name"));
  EXPECT_EQ(defaults.string("name", "fallback"), "fallback");
  EXPECT_EQ(defaults.integer("count", 7), 7);
  EXPECT_FALSE(defaults.string_list("items").has_value());
  EXPECT_TRUE(defaults.string_map("labels").empty());
}

TEST(PluginsCommonRunOptionValues, EveryWrongTypeIsRefusedWithOneWording) {
  EXPECT_EQ(error_of(R"("name":3)", [](const RunOptionValues& v) { v.string("name"); }),
            "run option 'name': expected a string, got 3");
  EXPECT_EQ(error_of(R"("count":"3")", [](const RunOptionValues& v) { v.integer("count", 0); }),
            R"(run option 'count': expected an integer, got "3")");
  EXPECT_EQ(error_of(R"("count":2.5)", [](const RunOptionValues& v) { v.integer("count", 0); }),
            "run option 'count': expected an integer, got 2.5");
  EXPECT_EQ(error_of(R"("ratio":true)", [](const RunOptionValues& v) { v.number("ratio", 0); }),
            "run option 'ratio': expected a number, got true");
  EXPECT_EQ(error_of(R"("on":"yes")", [](const RunOptionValues& v) { v.boolean("on", false); }),
            R"(run option 'on': expected true or false, got "yes")");
  EXPECT_EQ(
      error_of(R"("items":["a",1])", [](const RunOptionValues& v) { v.string_list("items"); }),
      R"(run option 'items': expected a list of strings, got ["a",1])");
  EXPECT_EQ(
      error_of(R"("labels":{"k":1})", [](const RunOptionValues& v) { v.string_map("labels"); }),
      R"(run option 'labels': expected a map of strings to strings, got {"k":1})");
  const std::string long_value(100, 'x');
  EXPECT_EQ(error_of(R"("count":")" + long_value + "\"",
                     [](const RunOptionValues& v) { v.integer("count", 0); }),
            "run option 'count': expected an integer, got \"" + long_value.substr(0, 59) + "...");
}

TEST(PluginsCommonRunOptionValues, UnknownAndMissingRequiredOptionsAreRefusedUpFront) {
  EXPECT_EQ(error_of(R"("cache":1)"),
            "run option 'cache' is not supported by the test scheduler; see `sortie runopts test`");
  for (const char* cfg : {"{}", R"({"project":""})", R"({"project":null})"}) {
    const rapidjson::Document document = parse_object(cfg, "cfg");
    try {
      RunOptionValues(&document, kTable, "test");
      ADD_FAILURE() << "accepted " << cfg;
    } catch (const Error& error) {
      EXPECT_STREQ(error.what(),
                   "run option 'project' is required by the test scheduler; pass -cfg "
                   "project=... or set it in .sortieconfig");
    }
  }
  EXPECT_THROW(RunOptionValues(nullptr, kTable, "test"), Error);
  const rapidjson::Document array = parse_object(R"({"cfg":[]})", "doc");
  try {
    RunOptionValues(&array["cfg"], kTable, "test");
    ADD_FAILURE() << "accepted an array";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "dryrun input: 'cfg' must be an object");
  }
}

}  // namespace
}  // namespace sortie
