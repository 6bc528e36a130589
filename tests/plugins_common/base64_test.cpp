#include "base64.hpp"

#include <gtest/gtest.h>

namespace sortie {
namespace {

constexpr plugins_common::Base64Reading kKubeconfig{.skip_whitespace = true};
constexpr plugins_common::Base64Reading kDockerAuth{.stop_at_padding = true};

TEST(PluginsCommonBase64, DecodesEveryPaddingLength) {
  for (const plugins_common::Base64Reading reading :
       {kKubeconfig, kDockerAuth, plugins_common::Base64Reading{}}) {
    EXPECT_EQ(plugins_common::base64_decode("", reading), "");
    EXPECT_EQ(plugins_common::base64_decode("Zg==", reading), "f");
    EXPECT_EQ(plugins_common::base64_decode("Zm8=", reading), "fo");
    EXPECT_EQ(plugins_common::base64_decode("Zm9v", reading), "foo");
    EXPECT_EQ(plugins_common::base64_decode("dXNlcjpwYXNzd29yZA==", reading), "user:password");
    EXPECT_EQ(plugins_common::base64_decode("+/8=", reading), std::string("\xfb\xff", 2));
  }
}

TEST(PluginsCommonBase64, PaddingIsOptional) {
  EXPECT_EQ(plugins_common::base64_decode("Zg", kKubeconfig), "f");
  EXPECT_EQ(plugins_common::base64_decode("Zm8", kDockerAuth), "fo");
}

TEST(PluginsCommonBase64, SkipsWhitespaceOnlyWhenAsked) {
  EXPECT_EQ(plugins_common::base64_decode("Zm9v\nYmFy\r\n YQ==\t", kKubeconfig), "foobara");
  EXPECT_EQ(plugins_common::base64_decode("Zm9v\nYmFy", kDockerAuth), std::nullopt);
  EXPECT_EQ(plugins_common::base64_decode("Zm9v YmFy", plugins_common::Base64Reading{}),
            std::nullopt);
}

TEST(PluginsCommonBase64, RefusesCharactersOutsideTheAlphabet) {
  EXPECT_EQ(plugins_common::base64_decode("Zm9v*", kKubeconfig), std::nullopt);
  EXPECT_EQ(plugins_common::base64_decode("Zm9v-_", kDockerAuth),
            std::nullopt);  // base64url is not accepted
}

TEST(PluginsCommonBase64, StrictReadingChecksThePadding) {
  EXPECT_EQ(plugins_common::base64_decode("Zg==Zg==", kKubeconfig),
            std::nullopt);  // data after padding
  EXPECT_EQ(plugins_common::base64_decode("Zg===", kKubeconfig), std::nullopt);  // too much padding
  EXPECT_EQ(plugins_common::base64_decode("Zm9vY", kKubeconfig),
            std::nullopt);  // a dangling character
}

TEST(PluginsCommonBase64, DockerAuthReadingStopsAtTheFirstPadding) {
  EXPECT_EQ(plugins_common::base64_decode("Zg==Zg==", kDockerAuth), "f");
  EXPECT_EQ(plugins_common::base64_decode("Zg===", kDockerAuth), "f");
  EXPECT_EQ(plugins_common::base64_decode("Zm9vY", kDockerAuth), "foo");
}

}  // namespace
}  // namespace sortie
