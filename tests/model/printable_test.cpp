// Tests for sortie/model/printable.hpp: what a terminal would act on is shown escaped.
#include <gtest/gtest.h>

#include <sortie/model/printable.hpp>
#include <string>

namespace sortie::model {
namespace {

TEST(Printable, ControlsBidiAndBrokenUtf8AreEscapedTheRestKept) {
  EXPECT_EQ(printable("x\x1b[2Jy\rz\u202eend"), R"(x\x1b[2Jy\x0dz\u202eend)");
  EXPECT_EQ(printable("a\tb\nc\x7f\u0085\u2066"), R"(a\x09b\x0ac\x7f\u0085\u2066)");
  EXPECT_EQ(printable("\xc3(\xe2\x82 caf\xc3\xa9 \\x41"), R"(\xc3(\xe2\x82 café \x41)");
}

// A message keeps its line breaks and tabs (a plugin's error may quote a build's output), not
// the rest.
TEST(Printable, AMessageKeepsLineBreaksAndTabsOnly) {
  EXPECT_EQ(printable_message("build failed:\n\tstep 3\r\x1b[1A\u202e"),
            "build failed:\n\tstep 3"
            R"(\x0d\x1b[1A\u202e)");
}

}  // namespace
}  // namespace sortie::model
