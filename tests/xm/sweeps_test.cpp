// Sweeps: product() in itertools.product order, zip() element-wise with equal lengths.
#include <gtest/gtest.h>

#include <functional>
#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>
#include <string>
#include <vector>

#include "scoped_env.hpp"

namespace sortie::xm {
namespace {

using Words = std::vector<std::string>;

std::vector<Words> words(const std::vector<Args>& combinations) {
  std::vector<Words> result;
  for (const Args& args : combinations) result.push_back(args.to_list());
  return result;
}

TEST(SweepsTest, ProductVariesTheLastAxisFastest) {
  const auto combinations = product(
      {{"lr", {ArgValue::number("0.1"), ArgValue::number("0.01")}}, {"batch_size", {16, 32, 64}}});
  EXPECT_EQ(words(combinations), (std::vector<Words>{
                                     {"--lr=0.1", "--batch_size=16"},
                                     {"--lr=0.1", "--batch_size=32"},
                                     {"--lr=0.1", "--batch_size=64"},
                                     {"--lr=0.01", "--batch_size=16"},
                                     {"--lr=0.01", "--batch_size=32"},
                                     {"--lr=0.01", "--batch_size=64"},
                                 }));
}

TEST(SweepsTest, ProductOfThreeAxes) {
  const auto combinations = product({{"a", {1, 2}}, {"b", {true, false}}, {"c", {"x", "y"}}});
  ASSERT_EQ(combinations.size(), 8u);
  EXPECT_EQ(combinations[0].to_list(), (Words{"--a=1", "--b", "--c=x"}));
  EXPECT_EQ(combinations[1].to_list(), (Words{"--a=1", "--b", "--c=y"}));
  EXPECT_EQ(combinations[2].to_list(), (Words{"--a=1", "--nob", "--c=x"}));
  EXPECT_EQ(combinations[7].to_list(), (Words{"--a=2", "--nob", "--c=y"}));
}

TEST(SweepsTest, ProductEdgeCasesFollowItertools) {
  const auto none = product({});
  ASSERT_EQ(none.size(), 1u);  // itertools.product() yields one empty tuple
  EXPECT_TRUE(none[0].empty());
  EXPECT_TRUE(product({{"a", {1, 2}}, {"b", {}}}).empty());
}

std::vector<ArgValue> numbers(int count) {
  std::vector<ArgValue> values;
  for (int i = 0; i < count; ++i) values.emplace_back(i);
  return values;
}

// docs/limits.md L-14: the count is checked before any combination is built.
TEST(SweepsTest, WorkUnitsPerSweepAreLimited) {
  EXPECT_EQ(product({{"a", numbers(100)}, {"b", numbers(100)}}).size(), 10000u);
  EXPECT_EQ(zip({{"a", numbers(10000)}}).size(), 10000u);
  const std::string message =
      "exceeds the limit of 10000 work units (docs/limits.md L-14); raise it with "
      "SORTIE_LIMIT_WORK_UNITS_PER_SWEEP=<n>";
  for (const auto& sweep : std::vector<std::function<void()>>{
           [] {
             product({{"a", numbers(100)}, {"b", numbers(101)}});
           },
           [] {
             product({{"a", numbers(2)}, {"b", numbers(1 << 16)}, {"c", numbers(1 << 16)}});
           },
           [] {
             zip({{"a", numbers(10001)}});
           }}) {
    try {
      sweep();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  const sortie::testing::ScopedEnv raised("SORTIE_LIMIT_WORK_UNITS_PER_SWEEP", "10100");
  EXPECT_EQ(product({{"a", numbers(100)}, {"b", numbers(101)}}).size(), 10100u);
}

TEST(SweepsTest, ZipPairsElementWise) {
  const auto combinations =
      zip({{"lr", {ArgValue::number("0.1"), ArgValue::number("0.2")}}, {"name", {"a", "b"}}});
  EXPECT_EQ(words(combinations),
            (std::vector<Words>{{"--lr=0.1", "--name=a"}, {"--lr=0.2", "--name=b"}}));
  EXPECT_TRUE(zip({}).empty());
}

TEST(SweepsTest, ListValuesRepeatTheFlag) {
  const auto combinations = product({{"layers", {ArgValue(std::vector<ArgValue>{1, 2})}}});
  ASSERT_EQ(combinations.size(), 1u);
  EXPECT_EQ(combinations[0].to_list(), (Words{"--layers=1", "--layers=2"}));
}

TEST(SweepsTest, ZipRefusesUnequalLengthsNamingAxesAndLengths) {
  try {
    zip({{"lr", {1, 2}}, {"batch_size", {16, 32, 64}}});
    ADD_FAILURE() << "zip accepted unequal lengths";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("zip: ", 0), 0u) << message;
    EXPECT_NE(message.find("lr has 2, batch_size has 3"), std::string::npos) << message;
  }
}

TEST(SweepsTest, RepeatedAxisFails) {
  EXPECT_THROW(product({{"a", {1}}, {"a", {2}}}), Error);
  EXPECT_THROW(zip({{"a", {1}}, {"a", {2}}}), Error);
}

}  // namespace
}  // namespace sortie::xm
