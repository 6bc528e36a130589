#include "run_option_table.hpp"

#include <gtest/gtest.h>

#include <sortie/error.hpp>

#include "json_fields.hpp"

namespace sortie {
namespace {

constexpr RunOptionSpec kTable[] = {
    {"plain", "int", "3", "a plain option", RunOptionEffect::kNone},
    {"token_command", "str", "null", "runs a program", RunOptionEffect::kRunsProgram},
    {"project", "str", "\"p\"", "must be given", RunOptionEffect::kNone, kRunOptionRequired},
    {"out", "str", "null", "output", RunOptionEffect::kChoosesWriteLocation},
};

TEST(PluginsCommonRunOptionTable, WritesEveryOptionWithItsFlagsAndEffect) {
  EXPECT_EQ(write_run_options(kTable),
            R"({"schema":"sortie.runopts/1","options":[)"
            R"({"name":"plain","type":"int","default":3,"required":false,"effect":"none",)"
            R"("help":"a plain option"},)"
            R"({"name":"token_command","type":"str","default":null,"required":false,)"
            R"("effect":"runs_program","help":"runs a program"},)"
            R"({"name":"project","type":"str","default":"p","required":true,"effect":"none",)"
            R"("help":"must be given"},)"
            R"({"name":"out","type":"str","default":null,"required":false,)"
            R"("effect":"chooses_write_location","help":"output"}]})");
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
