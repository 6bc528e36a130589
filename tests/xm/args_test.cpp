// XManager's SequentialArgs rules (anchors xmanager-FEATURES.md §1.1), row by row, without the
// shell quoting sortie leaves out on purpose.
#include <gtest/gtest.h>

#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>
#include <string>
#include <vector>

namespace sortie::xm {
namespace {

using Words = std::vector<std::string>;

TEST(ArgsTest, DictBecomesKeywordFlagsInOrder) {
  const Args args = {{"batch_size", 16}, {"model", "resnet"}, {"lr", ArgValue::number("0.1")}};
  EXPECT_EQ(args.to_list(), (Words{"--batch_size=16", "--model=resnet", "--lr=0.1"}));
}

TEST(ArgsTest, BooleansBecomeAbslFlags) {
  const Args args = {{"debug", true}, {"cache", false}};
  EXPECT_EQ(args.to_list(), (Words{"--debug", "--nocache"}));
}

TEST(ArgsTest, NullOmitsTheFlagButTheStringNoneIsPassed) {
  const Args args = {{"seed", ArgValue()}, {"mode", "None"}, {"steps", 3}};
  EXPECT_EQ(args.to_list(), (Words{"--mode=None", "--steps=3"}));
}

TEST(ArgsTest, FlatListRepeatsTheFlag) {
  const Args args = {{"x", std::vector<ArgValue>{1, 2}},
                     {"tag", std::vector<ArgValue>{"a", "b c"}}};
  EXPECT_EQ(args.to_list(), (Words{"--x=1", "--x=2", "--tag=a", "--tag=b c"}));
}

TEST(ArgsTest, EmptyListGivesNoFlag) {
  const Args args = {{"x", std::vector<ArgValue>{}}, {"y", 1}};
  EXPECT_EQ(args.to_list(), (Words{"--y=1"}));
}

TEST(ArgsTest, NestedListIsOneFlagPrintedThePythonWay) {
  const Args args = {
      {"shape", std::vector<ArgValue>{std::vector<ArgValue>{1, 2}, std::vector<ArgValue>{"a"}}}};
  EXPECT_EQ(args.to_list(), (Words{"--shape=[[1, 2], ['a']]"}));
}

TEST(ArgsTest, ListFormIsPositionalAndNeverQuoted) {
  const Args args = Args::list({"--foo", "a b", "$HOME", "it's"});
  EXPECT_EQ(args.to_list(), (Words{"--foo", "a b", "$HOME", "it's"}));
}

TEST(ArgsTest, PositionalValuesUseTheirPythonText) {
  Args args;
  args.add_positional(true)
      .add_positional(false)
      .add_positional(ArgValue())
      .add_positional(7)
      .add_positional(std::vector<ArgValue>{1, "x", true, ArgValue()});
  EXPECT_EQ(args.to_list(), (Words{"True", "False", "None", "7", "[1, 'x', True, None]"}));
}

TEST(ArgsTest, MergeOverridesKeywordsInPlaceAndAppendsPositionals) {
  Args args = Args::list({"serve"});
  args.set("foo", "1").set("bar", 42);
  Args later = Args::list({"--"});
  later.set("foo", "2").set("baz", true);
  args.merge(later);
  EXPECT_EQ(args.to_list(), (Words{"serve", "--foo=2", "--bar=42", "--", "--baz"}));
}

TEST(ArgsTest, SetOverridesInPlace) {
  Args args = {{"a", 1}, {"b", 2}};
  args.set("a", 3).set("c", 4);
  EXPECT_EQ(args.to_list(), (Words{"--a=3", "--b=2", "--c=4"}));
  ASSERT_EQ(args.items().size(), 3u);
  EXPECT_EQ(args.items()[0].name, "a");
}

TEST(ArgsTest, DuplicateDictKeysKeepTheFirstPlaceAndTheLastValue) {
  const Args args = {{"a", 1}, {"b", 2}, {"a", 5}};
  EXPECT_EQ(args.to_list(), (Words{"--a=5", "--b=2"}));
}

TEST(ArgsTest, EmptyArgs) {
  const Args args;
  EXPECT_TRUE(args.empty());
  EXPECT_TRUE(args.to_list().empty());
  EXPECT_FALSE(Args::list({"x"}).empty());
}

TEST(ArgValueTest, NumberLiteralsKeepTheirText) {
  EXPECT_EQ(ArgValue::number("1e-5").to_string(), "1e-5");
  EXPECT_EQ(ArgValue::number("0.10").to_string(), "0.10");
  EXPECT_EQ(ArgValue::number("-3").to_string(), "-3");
  const Args args = {{"lr", ArgValue::number("1e-5")}};
  EXPECT_EQ(args.to_list(), (Words{"--lr=1e-5"}));
}

TEST(ArgValueTest, NumberRefusesText) {
  EXPECT_THROW(ArgValue::number("fast"), Error);
  EXPECT_THROW(ArgValue::number(""), Error);
  EXPECT_THROW(ArgValue::number("1e"), Error);
}

TEST(ArgValueTest, IntegersPrintPlainly) {
  EXPECT_EQ(ArgValue(16).to_string(), "16");
  EXPECT_EQ(ArgValue(-2L).to_string(), "-2");
  EXPECT_EQ(ArgValue(9007199254740993LL).to_string(), "9007199254740993");
}

TEST(ArgValueTest, DoublesPrintAsPythonRepr) {
  EXPECT_EQ(ArgValue(0.1).to_string(), "0.1");
  EXPECT_EQ(ArgValue(1e-05).to_string(), "1e-05");
  EXPECT_EQ(ArgValue(0.0001).to_string(), "0.0001");
  EXPECT_EQ(ArgValue(100.0).to_string(), "100.0");
  EXPECT_EQ(ArgValue(1e16).to_string(), "1e+16");
  EXPECT_EQ(ArgValue(1e15).to_string(), "1000000000000000.0");
  EXPECT_EQ(ArgValue(1.5e300).to_string(), "1.5e+300");
  EXPECT_EQ(ArgValue(-0.5).to_string(), "-0.5");
  EXPECT_EQ(ArgValue(0.0).to_string(), "0.0");
  EXPECT_EQ(ArgValue(1.0 / 3).to_string(), "0.3333333333333333");
  EXPECT_EQ(ArgValue(123456.789).to_string(), "123456.789");
}

TEST(ArgValueTest, DoubleTextReadsBackAsTheSameDouble) {
  for (const double value :
       {0.1, 1.0 / 3, 2.0 / 7 * 1e-9, 6.02214076e23, 5e-324, 1.7976931348623157e308}) {
    EXPECT_EQ(std::strtod(ArgValue(value).to_string().c_str(), nullptr), value);
  }
}

TEST(ArgValueTest, StringsInListsArePythonRepr) {
  const ArgValue value(std::vector<ArgValue>{"a", "it's", "say \"hi\"", "back\\slash"});
  EXPECT_EQ(value.to_string(), R"(['a', "it's", 'say "hi"', 'back\\slash'])");
}

TEST(ArgValueTest, EqualityComparesKindAndValue) {
  EXPECT_EQ(ArgValue(1), ArgValue::number("1"));
  EXPECT_FALSE(ArgValue(1) == ArgValue("1"));
  EXPECT_FALSE(ArgValue(true) == ArgValue(false));
  EXPECT_EQ(ArgValue(), ArgValue());
  EXPECT_EQ(ArgValue(std::vector<ArgValue>{1, "a"}), ArgValue(std::vector<ArgValue>{1, "a"}));
  EXPECT_FALSE(ArgValue(std::vector<ArgValue>{1}) == ArgValue(std::vector<ArgValue>{2}));
  EXPECT_EQ(ArgValue(true).kind(), ArgValue::Kind::kBool);
}

TEST(EnvVarsTest, AcceptsShellNames) {
  EXPECT_NO_THROW(validate_env_vars({{"A", "1"}, {"_b2", ""}, {"PYTHONPATH", "/x"}}, "job"));
}

TEST(EnvVarsTest, RefusesOtherNamesNamingTheOrigin) {
  for (const std::string name : {"1A", "A-B", "", "A B", "é"}) {
    try {
      validate_env_vars({{name, "x"}}, "exp.yaml: job.env_vars");
      ADD_FAILURE() << "accepted '" << name << "'";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("exp.yaml: job.env_vars: '" + name + "'", 0), 0u) << message;
      EXPECT_NE(message.find("[a-zA-Z_][a-zA-Z0-9_]*"), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace sortie::xm
