// core/model/bounded_yaml.hpp: YAML is loaded only within limits::kYamlDepth and
// limits::kYamlNodes, counted with every alias expanded, and no alias may be inside the node it
// names (docs/limits.md L-2, L-3).
#include "bounded_yaml.hpp"

#include <gtest/gtest.h>

#include <sortie/model/error.hpp>
#include <string>

#include "hostile_inputs.hpp"
#include "model_test_support.hpp"
#include "scoped_env.hpp"

namespace sortie::model {
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

// Issue 26, A1: yaml-cpp resolves an alias to the node its anchor names, so "title: &a [*a]" is a
// list holding itself; every reader walking it recursed until the stack overflowed (SIGSEGV).
TEST(BoundedYamlTest, AnAliasInsideTheNodeItNamesIsRefusedAsACycle) {
  try {
    load_bounded_yaml("title: &a [*a]\n", "t.yaml");
    ADD_FAILURE() << "no error for a cycle";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), SORTIE_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()),
              "t.yaml:1:12: an alias refers to a node that contains it (a cycle); *a is inside "
              "the node anchored &a at 1:8, and an alias may name only a node that ends before it");
  }
  // A mapping, an alias deeper inside, an alias as a key, an alias in a role's own args, and an
  // anchor defined again around an alias of its name (which names the new, unended node).
  const auto cycle_at = [](const std::string& text, const std::string& location) {
    const std::string message = error_of([&] { load_bounded_yaml(text, "t.yaml"); });
    EXPECT_EQ(message.rfind("t.yaml:" + location +
                                ": an alias refers to a node that contains it "
                                "(a cycle)",
                            0),
              0u)
        << text << "\n"
        << message;
  };
  cycle_at("&m {k: *m}\n", "1:8");
  cycle_at("a: &a [1, [2, {b: [*a]}]]\n", "1:20");
  cycle_at("? &k [*k]\n: 1\n", "1:7");
  cycle_at("roles:\n  - &r\n    name: main\n    args: [*r]\n", "4:12");
  cycle_at("a: &a [1]\nb: &a [*a]\n", "2:8");
  EXPECT_NE(error_of([] {
              load_bounded_yaml("&m {k: *m}\n", "t.yaml");
            }).find("*m is inside the node anchored &m at 1:1"),
            std::string::npos);
  // Aliases of nodes that have ended are no cycles, wherever they are.
  const YAML::Node shared = load_bounded_yaml("a: &a [1, &b {x: 2}]\nb: [*a, *b]\n", "t.yaml");
  EXPECT_EQ(shared["b"][0].size(), 2u);
  EXPECT_EQ(shared["b"][1]["x"].as<int>(), 2);
  EXPECT_EQ(load_bounded_yaml("[&a 1, [*a]]\n", "t.yaml")[1][0].as<int>(), 1);
  EXPECT_EQ(load_bounded_yaml("a: &a [1]\nb: &a [2]\nc: *a\n", "t.yaml")["c"][0].as<int>(), 2);
}

TEST(BoundedYamlTest, DeepNestingFarPastTheLimitIsAnErrorNotACrash) {
  const std::string message =
      error_of([&] { load_bounded_yaml(nested_json_arrays(100000), "t.yaml"); });
  EXPECT_NE(message.find("exceeds the limit of 128 levels"), std::string::npos) << message;
}

}  // namespace
}  // namespace sortie::model
