// Tests for sortie/core/error.hpp.
#include <gtest/gtest.h>

#include <sortie/core/error.hpp>
#include <string>

namespace sortie::core {
namespace {

TEST(ErrorTest, StatusNamesAreTheCanonicalOnes) {
  EXPECT_STREQ(status_name(SORTIE_OK), "OK");
  EXPECT_STREQ(status_name(SORTIE_NOT_FOUND), "NOT_FOUND");
  EXPECT_STREQ(status_name(SORTIE_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED");
  EXPECT_STREQ(status_name(SORTIE_FAILED_PRECONDITION), "FAILED_PRECONDITION");
  EXPECT_STREQ(status_name(SORTIE_UNIMPLEMENTED), "UNIMPLEMENTED");
  EXPECT_STREQ(status_name(SORTIE_UNAUTHENTICATED), "UNAUTHENTICATED");
}

TEST(ErrorTest, ValuesOutsideTheSetAreUnknown) {
  EXPECT_STREQ(status_name(10), "UNKNOWN");  // ABORTED in gRPC, not part of the sortie set
  EXPECT_STREQ(status_name(-1), "UNKNOWN");
  EXPECT_STREQ(status_name(99), "UNKNOWN");
}

TEST(ErrorTest, ErrorCarriesStatusAndMessage) {
  const Error error(SORTIE_NOT_FOUND, "scheduler 'x' not found");
  EXPECT_EQ(error.status(), SORTIE_NOT_FOUND);
  EXPECT_EQ(std::string(error.what()), "scheduler 'x' not found");
  EXPECT_EQ(Error("bad option").status(), SORTIE_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace sortie::core
