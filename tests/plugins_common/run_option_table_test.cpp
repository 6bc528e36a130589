#include "run_option_table.hpp"

#include <gtest/gtest.h>

#include <sortie/error.hpp>

#include "json_fields.hpp"

namespace sortie {
namespace {

constexpr RunOptionSpec kTable[] = {
    {"plain", "int", "3", "a plain option"},
    {"token_command", "str", "null", "runs a program", kRunOptionSensitive},
    {"project", "str", "\"p\"", "must be given", kRunOptionRequired},
};

TEST(PluginsCommonRunOptionTable, WritesEveryOptionWithItsFlags) {
  EXPECT_EQ(
      write_run_options(kTable),
      R"({"schema":"sortie.runopts/1","options":[)"
      R"({"name":"plain","type":"int","default":3,"required":false,"help":"a plain option"},)"
      R"({"name":"token_command","type":"str","default":null,"required":false,)"
      R"("sensitive":true,"help":"runs a program"},)"
      R"({"name":"project","type":"str","default":"p","required":true,"help":"must be given"}]})");
}

TEST(PluginsCommonRunOptionTable, AnUnknownOptionIsRefusedNamingItAndTheScheduler) {
  const rapidjson::Document cfg = parse_object(R"({"plain":1,"cache":2})", "cfg");
  try {
    refuse_unknown_run_options(cfg, kTable, "local_dir");
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kInvalidArgument);
    EXPECT_STREQ(error.what(),
                 "run option 'cache' is not supported by the local_dir scheduler; see `sortie "
                 "runopts local_dir`");
  }
}

}  // namespace
}  // namespace sortie
