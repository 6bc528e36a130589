#include <gtest/gtest.h>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

const rapidjson::Value* find_option(const rapidjson::Document& options, const char* name) {
  for (const auto& option : options["options"].GetArray()) {
    if (std::string(option["name"].GetString()) == name) return &option;
  }
  return nullptr;
}

TEST(RunOptions, DescribesEveryOptionWithTypeDefaultAndHelp) {
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const Result result = scheduler.run_options();
  ASSERT_EQ(result.status, SORTIE_OK) << result.err;
  const rapidjson::Document options = parse(result.out);
  EXPECT_STREQ(options["schema"].GetString(), "sortie.runopts/1");
  const std::pair<const char*, const char*> expected[] = {{"log_dir", "str"},
                                                          {"prepend_cwd", "bool"},
                                                          {"auto_set_cuda_visible_devices", "bool"},
                                                          {"image_provider", "str"},
                                                          {"cancel_grace_period", "float"},
                                                          {"gpu_devices", "list"},
                                                          {"read_only_workdir", "bool"},
                                                          {"env_allow", "list"}};
  EXPECT_EQ(options["options"].Size(), std::size(expected));
  for (const auto& [name, type] : expected) {
    const rapidjson::Value* option = find_option(options, name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_STREQ((*option)["type"].GetString(), type) << name;
    EXPECT_GT((*option)["help"].GetStringLength(), 10u) << name;
    EXPECT_FALSE((*option)["required"].GetBool()) << name;
  }
  EXPECT_FALSE((*find_option(options, "prepend_cwd"))["default"].GetBool());
  EXPECT_DOUBLE_EQ((*find_option(options, "cancel_grace_period"))["default"].GetDouble(), 10.0);
  EXPECT_STREQ((*find_option(options, "image_provider"))["default"].GetString(), "cwd");
}

TEST(RunOptions, LocalDirDefaultsToTheDirImageProvider) {
  TempDir state;
  SchedulerClient scheduler("local_dir", state.path());
  const rapidjson::Document options = parse(scheduler.run_options().out);
  EXPECT_STREQ((*find_option(options, "image_provider"))["default"].GetString(), "dir");
}

const char* kRole = R"([{"name":"r","entrypoint":"true"}])";

TEST(RunOptions, UnknownOptionIsRefusedByName) {
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const Result result = scheduler.dryrun(dryrun_input("a1", kRole, R"({"cache_size":3})"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("'cache_size'"), std::string::npos) << result.err;
}

TEST(RunOptions, UnknownOptionNamesTheSchedulerItWasGivenTo) {
  TempDir state;
  SchedulerClient scheduler("local_dir", state.path());
  const Result result = scheduler.dryrun(dryrun_input("a1", kRole, R"({"cache_size":3})"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("not supported by the local_dir scheduler; see `sortie runopts "
                            "local_dir`"),
            std::string::npos)
      << result.err;
}

TEST(RunOptions, WrongTypeIsRefusedByName) {
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const Result result = scheduler.dryrun(dryrun_input("a1", kRole, R"({"prepend_cwd":"yes"})"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find(R"(run option 'prepend_cwd': expected true or false, got "yes")"),
            std::string::npos)
      << result.err;
}

TEST(RunOptions, EnvAllowEntriesAreNamesOrPrefixPatterns) {
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  for (const char* entry : {"NCCL_*_X", "A=B", ""}) {
    const std::string cfg = std::string(R"({"env_allow":["PATH",")") + entry + R"("]})";
    const Result result = scheduler.dryrun(dryrun_input("a1", kRole, cfg));
    EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT) << entry;
    EXPECT_NE(result.err.find("run option 'env_allow': '" + std::string(entry) +
                              "' is neither a variable name nor a prefix ending in '*'"),
              std::string::npos)
        << result.err;
  }
  const Result accepted =
      scheduler.dryrun(dryrun_input("a1", kRole, R"({"env_allow":["PATH","NCCL_*"]})"));
  EXPECT_EQ(accepted.status, SORTIE_OK) << accepted.err;
}

TEST(RunOptions, GpuDevicesWithoutAutoSetIsRefused) {
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const Result result = scheduler.dryrun(dryrun_input("a1", kRole, R"({"gpu_devices":["0","1"]})"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("auto_set_cuda_visible_devices"), std::string::npos) << result.err;
}

TEST(RunOptions, NegativeGracePeriodIsRefused) {
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const Result result =
      scheduler.dryrun(dryrun_input("a1", kRole, R"({"cancel_grace_period":-1})"));
  EXPECT_EQ(result.status, SORTIE_INVALID_ARGUMENT);
  EXPECT_NE(result.err.find("cancel_grace_period"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace sortie::local::testing
