#include "registry_auth.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <stdlib.h>

#include <fstream>
#include <sortie/plugin.hpp>

#include "temp_dir.hpp"

namespace sortie::image_push {
namespace {

using ::sortie::testing::TempDir;

constexpr const char* kVertexToken = "the Vertex AI access token";

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// Base64url with padding, as the Engine reads X-Registry-Auth.
std::string decode_base64url(const std::string& text) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    if (c == '=') break;
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    bits = (bits << 6) | static_cast<uint32_t>(alphabet.find(c));
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

class ImagePushRegistryAuthTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("DOCKER_CONFIG", config_dir_.path().c_str(), 1); }
  void TearDown() override { ::unsetenv("DOCKER_CONFIG"); }

  void write_config(const std::string& json) {
    write_text(config_dir_.path() + "/config.json", json);
  }
  // The X-Registry-Auth for `registry`, decoded; counts the token requests.
  rapidjson::Document auth_for(const std::string& registry) {
    const std::string header =
        x_registry_auth(registry_credentials(registry, kVertexToken), registry, [this] {
          ++token_requests_;
          return std::string("ya29.registry-token");
        });
    EXPECT_EQ(header.size() % 4, 0u) << header;
    rapidjson::Document auth;
    auth.Parse(decode_base64url(header).c_str());
    return auth;
  }

  TempDir config_dir_;
  int token_requests_ = 0;
};

TEST_F(ImagePushRegistryAuthTest, AnonymousWithoutConfigOrGoogleRegistry) {
  const std::string header = x_registry_auth(registry_credentials("127.0.0.1:5000", kVertexToken),
                                             "127.0.0.1:5000", [this] {
                                               ++token_requests_;
                                               return std::string("unused");
                                             });
  EXPECT_EQ(header, "e30=");
  EXPECT_EQ(token_requests_, 0);
  EXPECT_EQ(registry_credentials("127.0.0.1:5000", kVertexToken).description, "no credentials");
}

TEST_F(ImagePushRegistryAuthTest, GoogleRegistriesTakeTheAccessToken) {
  for (const std::string registry : {"us-docker.pkg.dev", "gcr.io", "eu.gcr.io"}) {
    EXPECT_TRUE(is_google_registry(registry)) << registry;
    const rapidjson::Document auth = auth_for(registry);
    EXPECT_STREQ(auth["username"].GetString(), "oauth2accesstoken");
    EXPECT_STREQ(auth["password"].GetString(), "ya29.registry-token");
    EXPECT_STREQ(auth["serveraddress"].GetString(), registry.c_str());
  }
  EXPECT_EQ(token_requests_, 3);
  EXPECT_FALSE(is_google_registry("docker.pkg.dev.example.com"));
  EXPECT_FALSE(is_google_registry("notgcr.io"));
  // The description names the source, never the token.
  EXPECT_EQ(registry_credentials("gcr.io", kVertexToken).description,
            "the Vertex AI access token (user oauth2accesstoken)");
}

TEST_F(ImagePushRegistryAuthTest, WithoutAnAccessTokenGoogleRegistriesGoAnonymous) {
  // The kubernetes scheduler has no Google token: the Engine pushes anonymously.
  EXPECT_EQ(registry_credentials("gcr.io", "").description, "no credentials");
  EXPECT_EQ(x_registry_auth(registry_credentials("gcr.io", ""), "gcr.io",
                            [this] {
                              ++token_requests_;
                              return std::string("never");
                            }),
            "e30=");
  EXPECT_EQ(token_requests_, 0);
}

TEST_F(ImagePushRegistryAuthTest, DockerLoginEntriesWin) {
  // "auth" is base64("u:p:w") for 127.0.0.1:5000; Docker Hub's key is its v1 URL.
  write_config(R"({"auths":{"127.0.0.1:5000":{"auth":"dTpwOnc="},
      "https://index.docker.io/v1/":{"username":"hubuser","password":"hubpass"},
      "us-docker.pkg.dev":{"identitytoken":"id-token"},
      "http://registry.example:8443/":{}},"credsStore":"desktop"})");
  rapidjson::Document local = auth_for("127.0.0.1:5000");
  EXPECT_STREQ(local["username"].GetString(), "u");
  EXPECT_STREQ(local["password"].GetString(), "p:w");
  EXPECT_STREQ(local["serveraddress"].GetString(), "127.0.0.1:5000");
  EXPECT_EQ(registry_credentials("127.0.0.1:5000", kVertexToken).description,
            "the entry for 127.0.0.1:5000 in " + config_dir_.path() + "/config.json");
  rapidjson::Document hub = auth_for("docker.io");
  EXPECT_STREQ(hub["username"].GetString(), "hubuser");
  EXPECT_STREQ(hub["password"].GetString(), "hubpass");
  rapidjson::Document google = auth_for("us-docker.pkg.dev");
  EXPECT_STREQ(google["identitytoken"].GetString(), "id-token");
  EXPECT_FALSE(google.HasMember("password"));
  EXPECT_EQ(token_requests_, 0);
  // An entry without credentials (a credential store holds them) leaves the registry anonymous.
  EXPECT_EQ(registry_credentials("registry.example:8443", kVertexToken).description,
            "no credentials");
}

TEST_F(ImagePushRegistryAuthTest, MalformedConfigIsAnErrorNamingTheFile) {
  write_config("{not json");
  try {
    registry_credentials("127.0.0.1:5000", kVertexToken);
    ADD_FAILURE() << "a malformed config was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("Docker config " + config_dir_.path() + "/config.json"),
              std::string::npos)
        << e.what();
  }
  write_config(R"({"auths":{"127.0.0.1:5000":{"auth":"bm9jb2xvbg=="}}})");  // "nocolon"
  try {
    registry_credentials("127.0.0.1:5000", kVertexToken);
    ADD_FAILURE() << "an auth without USER:PASSWORD was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'auth' is not base64 of USER:PASSWORD"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find("nocolon"), std::string::npos);
  }
}

}  // namespace
}  // namespace sortie::image_push
