// sortie/limits.hpp and sortie/json_nesting.hpp: limits read from SORTIE_LIMIT_<NAME>, and the
// nesting count that lets readers refuse deep JSON before parsing it (docs/limits.md).
#include <gtest/gtest.h>

#include <sortie/json_nesting.hpp>
#include <sortie/limits.hpp>
#include <string>

#include "hostile_inputs.hpp"
#include "scoped_env.hpp"

namespace sortie {
namespace {

using testing::nested_json_arrays;
using testing::ScopedEnv;

TEST(LimitsTest, DefaultUntilTheVariableRaisesIt) {
  EXPECT_EQ(limits::value(limits::kJsonDepth), 128u);
  const ScopedEnv raised("SORTIE_LIMIT_JSON_DEPTH", "1000");
  EXPECT_EQ(limits::value(limits::kJsonDepth), 1000u);
}

TEST(LimitsTest, AValueThatIsNotAPositiveIntegerIsRefused) {
  for (const char* bad : {"0", "-1", "12x", "lots", "99999999999999999999999"}) {
    const ScopedEnv set("SORTIE_LIMIT_YAML_NODES", bad);
    try {
      limits::value(limits::kYamlNodes);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::kInvalidArgument);
      EXPECT_EQ(std::string(e.what()),
                std::string("SORTIE_LIMIT_YAML_NODES='") + bad +
                    "' is not a positive integer; set it to the new limit (100000 nodes (aliases "
                    "expanded) by default, docs/limits.md L-3) or unset it");
    }
  }
}

TEST(LimitsTest, ExceededNamesTheLimitItsRuleAndTheVariable) {
  EXPECT_EQ(limits::exceeded("num_replicas (20000)", limits::kReplicasPerRole),
            "num_replicas (20000) exceeds the limit of 10000 replicas (docs/limits.md L-13); "
            "raise it with SORTIE_LIMIT_REPLICAS_PER_ROLE=<n>");
}

TEST(JsonNestingTest, TheBoundaryIsTheLimitItself) {
  EXPECT_FALSE(json_nesting_exceeds(nested_json_arrays(128), 128));
  EXPECT_TRUE(json_nesting_exceeds(nested_json_arrays(129), 128));
  EXPECT_FALSE(json_nesting_exceeds(R"({"a":[1,{"b":2}],"c":{}})", 3));
  EXPECT_TRUE(json_nesting_exceeds(R"({"a":[1,{"b":2}]})", 2));
}

TEST(JsonNestingTest, BracketsInStringsDoNotCount) {
  EXPECT_FALSE(json_nesting_exceeds(R"(["[[[[", "\"[[[", "{{{"])", 1));
  EXPECT_TRUE(json_nesting_exceeds(R"(["\\", [1]])", 1));  // the escaped '\' ends nothing
}

TEST(JsonNestingTest, AHundredThousandLevelsAreCountedWithoutRecursion) {
  EXPECT_TRUE(json_nesting_exceeds(nested_json_arrays(100000), 128));
}

}  // namespace
}  // namespace sortie
