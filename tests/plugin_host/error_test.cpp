// Tests for sortie/model/error.hpp.
#include <gtest/gtest.h>

#include <sortie/model/error.hpp>
#include <string>
#include <type_traits>
#include <utility>

namespace sortie::plugin_host {
namespace {

TEST(ErrorTest, StatusNamesAreTheCanonicalOnes) {
  EXPECT_STREQ(model::status_name(SORTIE_OK), "OK");
  EXPECT_STREQ(model::status_name(SORTIE_NOT_FOUND), "NOT_FOUND");
  EXPECT_STREQ(model::status_name(SORTIE_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED");
  EXPECT_STREQ(model::status_name(SORTIE_FAILED_PRECONDITION), "FAILED_PRECONDITION");
  EXPECT_STREQ(model::status_name(SORTIE_UNIMPLEMENTED), "UNIMPLEMENTED");
  EXPECT_STREQ(model::status_name(SORTIE_UNAUTHENTICATED), "UNAUTHENTICATED");
}

TEST(ErrorTest, ValuesOutsideTheSetAreUnknown) {
  EXPECT_STREQ(model::status_name(10), "UNKNOWN");  // ABORTED in gRPC, not part of the sortie set
  EXPECT_STREQ(model::status_name(-1), "UNKNOWN");
  EXPECT_STREQ(model::status_name(99), "UNKNOWN");
}

TEST(ErrorTest, ErrorCarriesStatusAndMessage) {
  const Error error(SORTIE_NOT_FOUND, "scheduler 'x' not found");
  EXPECT_EQ(error.status(), SORTIE_NOT_FOUND);
  EXPECT_EQ(error.code(), Code::kNotFound);
  EXPECT_EQ(std::string(error.what()), "scheduler 'x' not found");
}

// The core throws the SDK's type, so a plugin's error and the host's are caught alike.
static_assert(std::is_same_v<Error, sortie::Error>);

TEST(ErrorTest, EachNamedConstructorGivesItsCode) {
  const std::pair<Error, sortie_status> made[] = {
      {Error::cancelled("m"), SORTIE_CANCELLED},
      {Error::unknown("m"), SORTIE_UNKNOWN},
      {Error::invalid_argument("m"), SORTIE_INVALID_ARGUMENT},
      {Error::deadline_exceeded("m"), SORTIE_DEADLINE_EXCEEDED},
      {Error::not_found("m"), SORTIE_NOT_FOUND},
      {Error::already_exists("m"), SORTIE_ALREADY_EXISTS},
      {Error::permission_denied("m"), SORTIE_PERMISSION_DENIED},
      {Error::resource_exhausted("m"), SORTIE_RESOURCE_EXHAUSTED},
      {Error::failed_precondition("m"), SORTIE_FAILED_PRECONDITION},
      {Error::unimplemented("m"), SORTIE_UNIMPLEMENTED},
      {Error::internal("m"), SORTIE_INTERNAL},
      {Error::unavailable("m"), SORTIE_UNAVAILABLE},
      {Error::unauthenticated("m"), SORTIE_UNAUTHENTICATED},
  };
  for (const auto& [error, status] : made) {
    EXPECT_EQ(error.status(), status) << model::status_name(status);
    EXPECT_STREQ(error.what(), "m");
  }
}

TEST(ErrorTest, NoConstructorGuessesACode) {
  EXPECT_FALSE((std::is_constructible_v<Error, std::string>));
  EXPECT_FALSE((std::is_constructible_v<Error, const char*>));
}

}  // namespace
}  // namespace sortie::plugin_host
