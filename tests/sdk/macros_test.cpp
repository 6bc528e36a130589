// sortie/macros.hpp: per-replica substitution.
#include <gtest/gtest.h>

#include <sortie/macros.hpp>

namespace {

TEST(Macros, ReplacesKnownNamesAndKeepsTheRest) {
  sortie::MacroValues values;
  values.set("app_id", "trainer-x1").set("replica_id", "3");
  EXPECT_EQ(values.apply("--id=${app_id}/${replica_id}"), "--id=trainer-x1/3");
  EXPECT_EQ(values.apply("$HOME ${HOME} ${unknown}"), "$HOME ${HOME} ${unknown}");
  EXPECT_EQ(values.apply("unterminated ${app_id"), "unterminated ${app_id");
  EXPECT_EQ(values.apply(""), "");
}

TEST(Macros, ValuesAreNotReExpandedAndLaterSetsReplace) {
  sortie::MacroValues values;
  values.set("a", "${b}").set("b", "x").set("b", "y");
  EXPECT_EQ(values.apply("${a}${b}"), "${b}y");
}

}  // namespace
