#include "http_status.hpp"

#include <gtest/gtest.h>

namespace sortie {
namespace {

TEST(PluginsCommonHttpStatus, MapsClientErrorsToTheirCodes) {
  EXPECT_EQ(plugins_common::code_for_http_status(400), Code::kInvalidArgument);
  EXPECT_EQ(plugins_common::code_for_http_status(401), Code::kUnauthenticated);
  EXPECT_EQ(plugins_common::code_for_http_status(403), Code::kPermissionDenied);
  EXPECT_EQ(plugins_common::code_for_http_status(404), Code::kNotFound);
  EXPECT_EQ(plugins_common::code_for_http_status(409), Code::kAlreadyExists);
  EXPECT_EQ(plugins_common::code_for_http_status(412), Code::kFailedPrecondition);
  EXPECT_EQ(plugins_common::code_for_http_status(429), Code::kResourceExhausted);
  EXPECT_EQ(plugins_common::code_for_http_status(418), Code::kUnknown);
}

TEST(PluginsCommonHttpStatus, ServerErrorsAreUnavailableExceptNotImplemented) {
  EXPECT_EQ(plugins_common::code_for_http_status(500), Code::kUnavailable);
  EXPECT_EQ(plugins_common::code_for_http_status(503), Code::kUnavailable);
  EXPECT_EQ(plugins_common::code_for_http_status(501), Code::kUnimplemented);
}

}  // namespace
}  // namespace sortie
