#include "run_options.hpp"

#include <gtest/gtest.h>

#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::docker {
namespace {

DockerOptions parse(const std::string& cfg) { return parse_run_options(cfg); }

std::string refusal(const std::string& cfg) {
  try {
    parse(cfg);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kInvalidArgument);
    return error.what();
  }
  return "";
}

TEST(DockerRunOptions, DefaultsAndTypedValues) {
  const DockerOptions defaults = parse_run_options("{}");
  EXPECT_EQ(defaults.image_provider, "docker");
  EXPECT_EQ(defaults.cancel_grace_seconds, 10);
  const DockerOptions options = parse(
      R"({"copy_env":["AWS_*"],"env":{"A":"1"},"privileged":true,)"
      R"("image_repo":"localhost:5000/team/x","cancel_grace_period":2.5,"image_provider":""})");
  EXPECT_EQ(options.copy_env, std::vector<std::string>{"AWS_*"});
  EXPECT_EQ(options.env.at(0).second, "1");
  EXPECT_TRUE(options.privileged);
  EXPECT_EQ(options.image_repo, "localhost:5000/team/x");
  EXPECT_EQ(options.cancel_grace_seconds, 3);
  EXPECT_EQ(options.image_provider, "");
  const rapidjson::Document payload =
      plugins_common::parse_object(run_options_payload(), "runopts");
  EXPECT_EQ(payload["options"].Size(), 6u);
  // copy_env hands out the user's variables, env can make the replicas run other code
  // (LD_PRELOAD), privileged widens what they may do and image_repo chooses where images are
  // pushed with the user's credentials: an untrusted .sortieconfig may set none of them (P-5).
  std::vector<std::string> sensitive;
  for (const auto& option : payload["options"].GetArray()) {
    if (std::string_view(option["effect"].GetString()) != "none") {
      sensitive.emplace_back(option["name"].GetString());
    }
  }
  EXPECT_EQ(sensitive, (std::vector<std::string>{"copy_env", "env", "privileged", "image_repo"}));
}

TEST(DockerRunOptions, RefusesWhatItCannotHonour) {
  EXPECT_NE(refusal(R"({"quiet":true})").find("'quiet' is not supported"), std::string::npos);
  EXPECT_NE(refusal(R"({"image_repo":"reg/x:tag"})").find("without tag"), std::string::npos);
  EXPECT_NE(refusal(R"({"cancel_grace_period":-1})").find("cancel_grace_period"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"copy_env":[""]})").find("copy_env"), std::string::npos);
  EXPECT_EQ(refusal(R"({"privileged":"yes"})"),
            R"(run option 'privileged': expected true or false, got "yes")");
  EXPECT_EQ(refusal(R"({"quiet":true})"),
            "run option 'quiet' is not supported by the local_docker scheduler; see `sortie "
            "runopts local_docker`");
}

}  // namespace
}  // namespace sortie::docker
