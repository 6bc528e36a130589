#include "access_token.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <stdlib.h>

#include <sortie/plugin.hpp>

#include "jwt.hpp"
#include "vertex_test_support.hpp"

namespace sortie::vertex {
namespace {

using testing::FakeVertex;
using testing::TempDir;

// The message of the UNAUTHENTICATED error token() throws; "" when it returns.
std::string refusal(AccessTokenSource& source) {
  try {
    source.token();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kUnauthenticated) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "token() succeeded";
  return "";
}

class VertexAccessTokenTest : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv(kTokenEnv); }
  void TearDown() override { ::unsetenv(kTokenEnv); }

  static Connection with_command(const std::string& command) {
    Connection connection;
    connection.access_token_command = command;
    return connection;
  }

  // An RSA key pair made with the openssl CLI and a service-account key file naming token_uri.
  std::string make_key_file(const std::string& token_uri, const std::string& name = "key") {
    const std::string pem = dir_.path() + "/" + name + ".pem";
    const std::string pub = dir_.path() + "/" + name + ".pub.pem";
    EXPECT_EQ(std::system(("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out " +
                           pem + " 2>/dev/null && openssl pkey -in " + pem + " -pubout -out " + pub)
                              .c_str()),
              0);
    rapidjson::Document key(rapidjson::kObjectType);
    auto& alloc = key.GetAllocator();
    key.AddMember("type", "service_account", alloc);
    key.AddMember("client_email", "sortie-test@p.iam.gserviceaccount.com", alloc);
    key.AddMember("private_key_id", "abc123", alloc);
    key.AddMember("private_key", rapidjson::Value(testing::read_text(pem).c_str(), alloc), alloc);
    key.AddMember("token_uri", rapidjson::Value(token_uri.c_str(), alloc), alloc);
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    key.Accept(writer);
    const std::string path = dir_.path() + "/" + name + ".json";
    testing::write_text(path, buffer.GetString());
    return path;
  }

  TempDir dir_;
};

TEST_F(VertexAccessTokenTest, Base64urlHasNoPadding) {
  EXPECT_EQ(base64url(""), "");
  EXPECT_EQ(base64url("f"), "Zg");
  EXPECT_EQ(base64url("fo"), "Zm8");
  EXPECT_EQ(base64url("foo"), "Zm9v");
  EXPECT_EQ(base64url("\xfb\xff"), "-_8");
}

TEST_F(VertexAccessTokenTest, EnvironmentVariableWinsOverTheCommand) {
  ::setenv(kTokenEnv, " ya29.from-env\n", 1);
  AccessTokenSource source(with_command("echo ya29.from-command"));
  EXPECT_EQ(source.token(), "ya29.from-env");
  EXPECT_EQ(source.description(), "GOOGLE_OAUTH_ACCESS_TOKEN");
}

TEST_F(VertexAccessTokenTest, CommandOutputIsTheTokenAndIsCached) {
  const std::string counter = dir_.path() + "/calls";
  AccessTokenSource source(with_command("echo x >> " + counter + "; echo ya29.from-command"));
  EXPECT_EQ(source.token(), "ya29.from-command");
  EXPECT_EQ(source.token(), "ya29.from-command");
  EXPECT_EQ(testing::read_text(counter), "x\n");  // run once
  source.invalidate();
  EXPECT_EQ(source.token(), "ya29.from-command");
  EXPECT_EQ(testing::read_text(counter), "x\nx\n");
}

TEST_F(VertexAccessTokenTest, FailingCommandIsExplainedWithoutItsOutput) {
  AccessTokenSource failing(
      with_command("printf 'ya29.%s\\n' half-printed; echo 'ERROR: not logged in' >&2; exit 3"));
  const std::string message = refusal(failing);
  EXPECT_NE(message.find("failed (exit status 3): ERROR: not logged in"), std::string::npos)
      << message;
  EXPECT_NE(message.find("gcloud auth login"), std::string::npos) << message;
  EXPECT_EQ(message.find("ya29.half-printed"), std::string::npos) << message;
  AccessTokenSource silent(with_command("true"));
  EXPECT_NE(refusal(silent).find("printed no single token"), std::string::npos);
}

TEST_F(VertexAccessTokenTest, ServiceAccountJwtIsExchangedAtTheTokenEndpoint) {
  SORTIE_REQUIRE_ENGINE(testing::have_program("python3") && testing::have_program("openssl"),
                        "python3 and openssl are needed for the fake token endpoint");
  // The fake verifies the RS256 signature with this key's public half.
  const std::string key_file = make_key_file("http://127.0.0.1:0/token");
  FakeVertex fake({"--public-key", dir_.path() + "/key.pub.pem"});
  ASSERT_TRUE(fake.running());
  const std::string key_text = testing::read_text(key_file);
  const std::string placeholder = "http://127.0.0.1:0/token";
  std::string fixed = key_text;
  fixed.replace(fixed.find(placeholder), placeholder.size(), fake.url() + "/token");
  testing::write_text(key_file, fixed);

  ::setenv(kTokenEnv, "ya29.from-env", 1);  // the key file wins
  Connection connection;
  connection.service_account_key_file = key_file;
  AccessTokenSource source(connection);
  EXPECT_EQ(source.token(), "ya29.fake-1");
  EXPECT_EQ(source.token(), "ya29.fake-1");  // cached: expires_in is an hour
  EXPECT_EQ(source.description(), "service-account key " + key_file);
  const rapidjson::Document seen = fake.requests();
  ASSERT_EQ(seen["requests"].Size(), 1u);
  EXPECT_STREQ(seen["requests"][0]["path"].GetString(), "/token");

  // A key the endpoint does not know: its signature fails to verify.
  std::string other = testing::read_text(make_key_file(placeholder, "other"));
  other.replace(other.find(placeholder), placeholder.size(), fake.url() + "/token");
  testing::write_text(dir_.path() + "/other.json", other);
  connection.service_account_key_file = dir_.path() + "/other.json";
  AccessTokenSource wrong(connection);
  const std::string message = refusal(wrong);
  EXPECT_NE(message.find("HTTP 400 invalid_grant: Invalid JWT Signature."), std::string::npos)
      << message;
}

TEST_F(VertexAccessTokenTest, BadKeyFilesAreNamed) {
  Connection connection;
  connection.service_account_key_file = dir_.path() + "/missing.json";
  AccessTokenSource missing(connection);
  EXPECT_NE(refusal(missing).find("missing.json cannot be read"), std::string::npos);
  testing::write_text(dir_.path() + "/user.json", R"({"type":"authorized_user"})");
  connection.service_account_key_file = dir_.path() + "/user.json";
  AccessTokenSource user(connection);
  EXPECT_NE(refusal(user).find("not \"service_account\""), std::string::npos);
  testing::write_text(dir_.path() + "/garbled.json",
                      R"({"type":"service_account","client_email":"a@b","private_key":"nope"})");
  connection.service_account_key_file = dir_.path() + "/garbled.json";
  AccessTokenSource garbled(connection);
  EXPECT_NE(refusal(garbled).find("not a PEM RSA private key"), std::string::npos);
}

}  // namespace
}  // namespace sortie::vertex
