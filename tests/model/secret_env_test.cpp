// Which environment variables are secrets (docs/config-trust.md TRUST-7), and their values masked
// wherever an app's text shows them.
#include <gtest/gtest.h>

#include <sortie/model/secret_env.hpp>
#include <string>

namespace sortie::model {
namespace {

TEST(SecretEnv, CommonSecretNameShapesAreSecrets) {
  for (const std::string name : {"API_TOKEN",
                                 "hf_token",
                                 "AWS_SECRET_ACCESS_KEY",
                                 "DB_PASSWORD",
                                 "MYSQL_PASSWD",
                                 "GPG_PASSPHRASE",
                                 "GOOGLE_APPLICATION_CREDENTIALS",
                                 "WANDB_API_KEY",
                                 "OPENAI_APIKEY",
                                 "GITHUB_PAT",
                                 "PAT",
                                 "AZURE_DEVOPS_PAT_VALUE",
                                 "HF_AUTH",
                                 "hf-auth",
                                 "BASIC_AUTH_HEADER",
                                 "OAUTH_CLIENT",
                                 "PROXY_AUTHORIZATION",
                                 "OPENAI_KEY",
                                 "signing.key",
                                 "SMTP_PASS"}) {
    EXPECT_TRUE(is_secret_env(name, "s3cr3t-value")) << name;
  }
}

TEST(SecretEnv, NamesThatOnlyLookAlikeAreNot) {
  for (const std::string name :
       {"PATH", "PYTHONPATH", "PATTERN", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "CERT_AUTHORITY",
        "KEYBOARD", "KEY_FILE", "MONKEY", "PASSTHROUGH", "COMPASS_DIR", "REGION", "LR"}) {
    EXPECT_FALSE(is_secret_env(name, "some-value")) << name;
  }
}

TEST(SecretEnv, AFlagValueIsNoSecretToMask) {
  for (const std::string value : {"", "0", "1", "true", "False", "yes", "NO", "on", "off"}) {
    EXPECT_FALSE(is_secret_env("NO_AUTH", value)) << value;
  }
  EXPECT_TRUE(is_secret_env("NO_AUTH", "2fa-code"));
}

TEST(SecretEnv, EveryOccurrenceOfASecretValueIsMasked) {
  AppDef app;
  Role& role = app.roles.emplace_back();
  role.name = "main";
  role.env = {{"GITHUB_PAT", "ghp_0123456789"},
              {"HF_AUTH", "hf_abc"},
              {"DISABLE_AUTH", "1"},
              {"REGION", "eu"}};
  const auto secrets = secret_env_values(app);
  ASSERT_EQ(secrets.size(), 2u);
  EXPECT_EQ(mask_secrets("pat=ghp_0123456789 auth=hf_abc step=1 region=eu", secrets),
            "pat=******** auth=******** step=1 region=eu");
}

}  // namespace
}  // namespace sortie::model
