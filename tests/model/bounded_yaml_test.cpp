// core/model/bounded_yaml.hpp: YAML is loaded only within limits::kYamlDepth and
// limits::kYamlNodes, counted with every alias expanded (docs/limits.md L-2, L-3).
#include "bounded_yaml.hpp"

#include <gtest/gtest.h>

#include <string>

#include "hostile_inputs.hpp"
#include "model_test_support.hpp"
#include "scoped_env.hpp"

namespace sortie::core {
namespace {

using sortie::testing::nested_json_arrays;
using sortie::testing::ScopedEnv;
using sortie::testing::yaml_alias_bomb;
using testing::error_of;

TEST(BoundedYamlTest, AnAliasBombIsRefusedBeforeItIsExpanded) {
  const std::string bomb = yaml_alias_bomb();
  EXPECT_LT(bomb.size(), 410u);
  EXPECT_EQ(error_of([&] { load_bounded_yaml(bomb, "bomb.yaml"); }),
            "bomb.yaml: line 6, column 8: the YAML document (aliases expanded) exceeds the limit "
            "of 100000 "
            "nodes (aliases expanded) (docs/limits.md L-3); raise it with "
            "SORTIE_LIMIT_YAML_NODES=<n>");
}

TEST(BoundedYamlTest, NodeLimitCountsEachAliasAsWhatItNames) {
  // 1 map + 2 keys + a list of 2 + an alias of that list (3 nodes) = 9 nodes.
  const std::string text = "x: &x [1, 2]\ny: *x\n";
  {
    const ScopedEnv at_limit("SORTIE_LIMIT_YAML_NODES", "9");
    EXPECT_EQ(load_bounded_yaml(text, "t.yaml")["y"].size(), 2u);
  }
  const ScopedEnv below("SORTIE_LIMIT_YAML_NODES", "8");
  EXPECT_NE(
      error_of([&] { load_bounded_yaml(text, "t.yaml"); }).find("exceeds the limit of 8 nodes"),
      std::string::npos);
}

TEST(BoundedYamlTest, DepthLimitHoldsAtItsBoundaryAndThroughAliases) {
  EXPECT_TRUE(load_bounded_yaml(nested_json_arrays(128), "t.yaml").IsSequence());
  EXPECT_EQ(
      error_of([&] { load_bounded_yaml(nested_json_arrays(129), "t.yaml"); }),
      "t.yaml: line 1, column 129: the YAML nesting exceeds the limit of 128 levels of nesting "
      "(docs/limits.md L-2); raise it with SORTIE_LIMIT_YAML_DEPTH=<n>");
  // The mapping and a's two lists are 3 levels; b's list holds a at a 4th.
  const ScopedEnv depth("SORTIE_LIMIT_YAML_DEPTH", "3");
  EXPECT_TRUE(load_bounded_yaml("a: &a [[1]]\n", "t.yaml")["a"].IsSequence());
  EXPECT_NE(error_of([&] {
              load_bounded_yaml("a: &a [[1]]\nb: [*a]\n", "t.yaml");
            }).find("t.yaml: line 2, column 5: the YAML nesting exceeds the limit of 3"),
            std::string::npos);
}

TEST(BoundedYamlTest, DeepNestingFarPastTheLimitIsAnErrorNotACrash) {
  const std::string message =
      error_of([&] { load_bounded_yaml(nested_json_arrays(100000), "t.yaml"); });
  EXPECT_NE(message.find("exceeds the limit of 128 levels"), std::string::npos) << message;
}

}  // namespace
}  // namespace sortie::core
