#include "dockerignore.hpp"

#include <gtest/gtest.h>

namespace sortie::docker {
namespace {

TEST(DockerGlob, StarsStayInOneComponentDoubleStarsSpanMany) {
  EXPECT_TRUE(glob_match("*.tmp", "a.tmp"));
  EXPECT_FALSE(glob_match("*.tmp", "dir/a.tmp"));
  EXPECT_TRUE(glob_match("**/*.tmp", "dir/sub/a.tmp"));
  EXPECT_TRUE(glob_match("**/*.tmp", "a.tmp"));
  EXPECT_TRUE(glob_match("dir/**", "dir/a/b"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "a/c"));
  EXPECT_TRUE(glob_match("[a-c]x", "bx"));
  EXPECT_FALSE(glob_match("[!a-c]x", "bx"));
  EXPECT_TRUE(glob_match("\\*", "*"));
  EXPECT_FALSE(glob_match("\\*", "a"));
}

TEST(DockerIgnore, DirectoriesExceptionsAndLastMatchWins) {
  const DockerIgnore ignore("# comment\n\n/build\n*.log\n!keep.log\nsecret/\n  data/*.bin  \n");
  EXPECT_TRUE(ignore.excluded("build"));
  EXPECT_TRUE(ignore.excluded("build/out/x.o"));  // below an excluded directory
  EXPECT_TRUE(ignore.excluded("a.log"));
  EXPECT_FALSE(ignore.excluded("keep.log"));
  EXPECT_FALSE(ignore.excluded("sub/a.log"));  // '*' does not cross '/'
  EXPECT_TRUE(ignore.excluded("secret/key"));
  EXPECT_TRUE(ignore.excluded("data/x.bin"));
  EXPECT_FALSE(ignore.excluded("data/x.txt"));
  EXPECT_FALSE(ignore.excluded("src/main.py"));
  EXPECT_TRUE(ignore.has_exceptions());
  EXPECT_FALSE(DockerIgnore("a\nb\n").has_exceptions());
}

}  // namespace
}  // namespace sortie::docker
