#include <gtest/gtest.h>

#include <sortie/error.hpp>
#include <sortie/run_options.hpp>
#include <string>

namespace {

constexpr sortie::RunOptionSpec kTable[] = {
    {"nice", "int", "0", "niceness", sortie::RunOptionEffect::kNone},
    {"queue", "str", "null", "where", sortie::RunOptionEffect::kSendsData,
     sortie::kRunOptionRequired},
    {"ratio", "float", "0.5", "share", sortie::RunOptionEffect::kNone},
    {"tags", "list", "null", "labels", sortie::RunOptionEffect::kNone}};

TEST(RunOptionsTest, TheTableIsWrittenAsRunopts) {
  EXPECT_EQ(sortie::write_run_options(kTable, 1),
            R"({"schema":"sortie.runopts/1","options":[{"name":"nice","type":"int","default":0,)"
            R"("required":false,"effect":"none","help":"niceness"}]})");
}

TEST(RunOptionsTest, ValuesAreTypedWithDefaultsFilledIn) {
  const sortie::TypedRunOptions options =
      sortie::read_run_options(R"({"queue":"gpu","tags":["a","b"],"nice":null})", kTable);
  EXPECT_EQ(options.integer("nice"), 0);
  EXPECT_EQ(options.str("queue"), "gpu");
  EXPECT_DOUBLE_EQ(options.number("ratio"), 0.5);
  EXPECT_EQ(options.json("tags"), R"(["a","b"])");
  EXPECT_THROW(options.str("nice"), sortie::Error);  // not a str
}

TEST(RunOptionsTest, UnknownWrongTypeAndMissingRequiredAreRefused) {
  for (const char* cfg : {R"({"queue":"q","nicee":1})", R"({"queue":"q","nice":"5"})", "{}"}) {
    try {
      sortie::read_run_options(cfg, kTable);
      ADD_FAILURE() << cfg << " was not refused";
    } catch (const sortie::Error& e) {
      EXPECT_EQ(e.status(), SORTIE_INVALID_ARGUMENT) << cfg;
    }
  }
}

}  // namespace
