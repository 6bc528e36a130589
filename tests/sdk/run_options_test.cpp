#include <gtest/gtest.h>

#include <sortie/error.hpp>
#include <sortie/run_options.hpp>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr sortie::RunOptionSpec kTable[] = {
    {"nice", "int", "0", "niceness", sortie::RunOptionEffect::kNone},
    {"queue", "str", "null", "where", sortie::RunOptionEffect::kSendsData,
     sortie::kRunOptionRequired},
    {"ratio", "float", "0.5", "share", sortie::RunOptionEffect::kNone},
    {"tags", "list", "null", "labels", sortie::RunOptionEffect::kNone},
    {"labels", "dict", "null", "labels", sortie::RunOptionEffect::kNone},
    {"name", "str", "null", "name", sortie::RunOptionEffect::kNone},
    {"on", "bool", "false", "switch", sortie::RunOptionEffect::kNone},
    {"count", "int", "null", "count", sortie::RunOptionEffect::kNone}};

// The INVALID_ARGUMENT message reading `cfg` raises, or "" when it reads.
std::string error_of(const std::string& cfg) {
  try {
    sortie::read_run_options(cfg, kTable, "test");
  } catch (const sortie::Error& e) {
    EXPECT_EQ(e.status(), SORTIE_INVALID_ARGUMENT) << cfg;
    return e.what();
  }
  return "";
}

TEST(RunOptionsTest, TheTableIsWrittenAsRunopts) {
  EXPECT_EQ(sortie::write_run_options(kTable, 1),
            R"({"schema":"sortie.runopts/1","options":[{"name":"nice","type":"int","default":0,)"
            R"("required":false,"effect":"none","help":"niceness"}]})");
}

TEST(RunOptionsTest, ValuesAreTypedWithDefaultsFilledIn) {
  const sortie::TypedRunOptions options = sortie::read_run_options(
      R"({"queue":"gpu","tags":["a","b"],"nice":null,"labels":{"k":"v","a":"b"},"count":2.0})",
      kTable, "test");
  EXPECT_EQ(options.integer("nice"), 0);
  EXPECT_EQ(options.str("queue"), "gpu");
  EXPECT_DOUBLE_EQ(options.number("ratio"), 0.5);
  EXPECT_EQ(options.json("tags"), R"(["a","b"])");
  EXPECT_EQ(options.strings("tags"), (std::vector<std::string>{"a", "b"}));
  const std::vector<std::pair<std::string, std::string>> labels = {{"k", "v"}, {"a", "b"}};
  EXPECT_EQ(options.string_map("labels"), labels);
  EXPECT_EQ(options.integer("count"), 2);            // JSON writers differ on 2 and 2.0
  EXPECT_THROW(options.str("nice"), sortie::Error);  // not a str
}

// A default the scheduler computes: the fallback stands in for an option neither given nor
// defaulted by the table, never for one that is.
TEST(RunOptionsTest, FallbacksStandInForUnsetOptionsOnly) {
  const sortie::TypedRunOptions options =
      sortie::read_run_options(R"({"queue":"q","name":null})", kTable, "test");
  EXPECT_FALSE(options.has("name"));
  EXPECT_EQ(options.str("name", "fallback"), "fallback");
  EXPECT_EQ(options.integer("count", 7), 7);
  EXPECT_EQ(options.integer("nice", 7), 0);
  EXPECT_FALSE(options.boolean("on", true));
  EXPECT_DOUBLE_EQ(options.number("ratio", 2), 0.5);
  EXPECT_FALSE(options.strings("tags").has_value());
  EXPECT_TRUE(options.string_map("labels").empty());
  EXPECT_THROW(options.str("name"), sortie::Error);         // neither given nor defaulted
  EXPECT_THROW(options.integer("name", 1), sortie::Error);  // not an int
  // No cfg at all reads as no options.
  EXPECT_EQ(error_of(""), error_of("null"));
}

TEST(RunOptionsTest, EveryWrongTypeIsRefusedWithOneWording) {
  EXPECT_EQ(error_of(R"({"queue":"q","name":3})"), "run option 'name': expected a string, got 3");
  EXPECT_EQ(error_of(R"({"queue":"q","nice":"3"})"),
            R"(run option 'nice': expected an integer, got "3")");
  EXPECT_EQ(error_of(R"({"queue":"q","nice":2.5})"),
            "run option 'nice': expected an integer, got 2.5");
  EXPECT_EQ(error_of(R"({"queue":"q","ratio":true})"),
            "run option 'ratio': expected a number, got true");
  EXPECT_EQ(error_of(R"({"queue":"q","on":"yes"})"),
            R"(run option 'on': expected true or false, got "yes")");
  EXPECT_EQ(error_of(R"({"queue":"q","tags":["a",1]})"),
            R"(run option 'tags': expected a list of strings, got ["a",1])");
  EXPECT_EQ(error_of(R"({"queue":"q","labels":{"k":1}})"),
            R"(run option 'labels': expected a map of strings to strings, got {"k":1})");
  const std::string long_value(100, 'x');
  EXPECT_EQ(error_of(R"({"queue":"q","nice":")" + long_value + "\"}"),
            "run option 'nice': expected an integer, got \"" + long_value.substr(0, 59) + "...");
}

TEST(RunOptionsTest, UnknownAndMissingRequiredOptionsAreRefusedNamingTheScheduler) {
  EXPECT_EQ(error_of(R"({"queue":"q","nicee":1})"),
            "run option 'nicee' is not supported by the test scheduler; see `sortie runopts "
            "test`");
  for (const char* cfg : {"{}", R"({"queue":""})", R"({"queue":null})", ""}) {
    EXPECT_EQ(error_of(cfg),
              "run option 'queue' is required by the test scheduler; pass -cfg queue=... or set "
              "it in .sortieconfig")
        << cfg;
  }
  EXPECT_EQ(error_of("[]"), "dryrun input: 'cfg' must be an object");
  EXPECT_EQ(error_of("{"), "dryrun input: 'cfg' must be an object");
}

}  // namespace
