#include <gtest/gtest.h>

#include <sortie/model/error.hpp>
#include <sortie/model/runopts.hpp>
#include <string>

#include "model_test_support.hpp"

namespace sortie::model {
namespace {

using testing::error_of;

const char* kRunopts = R"({"schema": "sortie.runopts/1", "options": [
  {"name": "log_dir", "type": "str", "default": null, "required": false, "help": "where logs go"},
  {"name": "prepend_cwd", "type": "bool", "default": false, "help": "put CWD first in PATH"},
  {"name": "retries", "type": "int", "default": 3},
  {"name": "ratio", "type": "float"},
  {"name": "copy_env", "type": "list", "default": ["HOME"]},
  {"name": "env", "type": "dict", "default": {}},
  {"name": "queue", "type": "str", "required": true, "help": "the batch queue"}]})";

std::map<std::string, RawOpt> from_cfg(const std::string& text) {
  std::map<std::string, RawOpt> raw;
  for (const auto& [key, value] : split_cfg(text)) raw[key] = RawOpt{value, "-cfg"};
  return raw;
}

TEST(RunoptsTest, ParsesDeclarations) {
  const auto opts = parse_runopts(kRunopts, "scheduler test");
  ASSERT_EQ(opts.size(), 7u);
  EXPECT_EQ(opts[0].name, "log_dir");
  EXPECT_EQ(opts[0].type, OptType::kStr);
  EXPECT_EQ(opts[0].default_json, std::nullopt);
  EXPECT_EQ(opts[0].help, "where logs go");
  EXPECT_EQ(opts[1].type, OptType::kBool);
  EXPECT_EQ(opts[1].default_json, "false");
  EXPECT_EQ(opts[4].default_json, R"(["HOME"])");
  EXPECT_EQ(opts[5].type, OptType::kDict);
  EXPECT_TRUE(opts[6].required);
  EXPECT_STREQ(to_string(OptType::kList), "list");
  EXPECT_STREQ(to_string(OptType::kFloat), "float");
}

TEST(RunoptsTest, DeclarationErrorsNameTheSchedulerAndMember) {
  EXPECT_EQ(error_of([] {
              parse_runopts(R"({"options":[{"name":"a","type":"string"}]})", "scheduler x");
            }),
            R"(scheduler x: options[0].type: expected one of str, int, float, bool, list, dict, )"
            R"(got "string")");
  EXPECT_EQ(error_of([] {
              parse_runopts(R"({"options":[{"name":"a","type":"int","default":"3"}]})",
                            "scheduler x");
            }),
            R"(scheduler x: options[0].default: expected an integer, got "3")");
  EXPECT_EQ(error_of([] {
              parse_runopts(R"({"options":[{"name":"a","type":"int"},{"name":"a","type":"str"}]})",
                            "scheduler x");
            }),
            "scheduler x: options[1]: option 'a' is declared twice");
  EXPECT_EQ(error_of([] { parse_runopts(R"({"options":[{"type":"int"}]})", "scheduler x"); }),
            "scheduler x: options[0]: name is required");
  EXPECT_EQ(
      error_of([] { parse_runopts(R"({"options":[{"name":"a b","type":"int"}]})", "s"); }),
      R"(s: options[0].name: expected a name of letters, digits, '_', '-' or '.', got "a b")");
  EXPECT_EQ(error_of([] { parse_runopts(R"({"schema":"sortie.runopts/1"})", "s"); }),
            "s: options is required");
}

TEST(RunoptsTest, SplitCfgFollowsTorchxSemantics) {
  EXPECT_TRUE(split_cfg("").empty());
  EXPECT_TRUE(split_cfg("  ").empty());
  const auto pairs = split_cfg("a=1,b=x;y,c=k1:v1;k2:v2");
  EXPECT_EQ(pairs,
            (std::map<std::string, std::string>{{"a", "1"}, {"b", "x;y"}, {"c", "k1:v1;k2:v2"}}));
  // A comma not followed by "key=" belongs to the value, so lists may use it.
  EXPECT_EQ(split_cfg("FOO=v1;v2;v3,BAR=v1,v2,v3"),
            (std::map<std::string, std::string>{{"FOO", "v1;v2;v3"}, {"BAR", "v1,v2,v3"}}));
  EXPECT_EQ(split_cfg("FOO=v1;v2;v3;BAR=v1,v2,v3"),
            (std::map<std::string, std::string>{{"FOO", "v1;v2;v3"}, {"BAR", "v1,v2,v3"}}));
  EXPECT_EQ(split_cfg("args=--x=1"), (std::map<std::string, std::string>{{"args", "--x=1"}}));
  EXPECT_EQ(split_cfg(" a = 1 , b = 2 "),
            (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(split_cfg("a="), (std::map<std::string, std::string>{{"a", ""}}));
}

TEST(RunoptsTest, SplitCfgRefusesMalformedText) {
  EXPECT_EQ(error_of([] { split_cfg("log_dir"); }),
            "-cfg: 'log_dir' is not KEY=VALUE; write -cfg key=value,key2=value2 (lists may use "
            "',' or ';', dicts k1:v1;k2:v2)");
  EXPECT_EQ(error_of([] { split_cfg("=1"); }).substr(0, 30), "-cfg: '=1' is not KEY=VALUE; w");
  EXPECT_EQ(error_of([] { split_cfg("a=1,a=2"); }), "-cfg: option 'a' is given twice");
}

TEST(RunoptsTest, ResolvesTypesAndFillsDefaults) {
  const auto opts = parse_runopts(kRunopts, "scheduler test");
  EXPECT_EQ(resolve_runopts(opts, from_cfg("queue=q1"), "test"),
            R"({"prepend_cwd":false,"retries":3,"copy_env":["HOME"],"env":{},"queue":"q1"})");
  EXPECT_EQ(resolve_runopts(opts,
                            from_cfg("queue=q1,log_dir=/tmp/x,prepend_cwd=YES,retries=-2,"
                                     "ratio=0.25,copy_env=A;B,C,env=k1:v1;k2:v2"),
                            "test"),
            R"({"log_dir":"/tmp/x","prepend_cwd":true,"retries":-2,"ratio":0.25,)"
            R"("copy_env":["A","B","C"],"env":{"k1":"v1","k2":"v2"},"queue":"q1"})");
  // From .sortieconfig a dict may also be written k=v (in -cfg "k=" would start a new option).
  EXPECT_EQ(
      resolve_runopts(opts, {{"queue", {"q", "-cfg"}}, {"env", {"A=1; B = 2,", ".sortieconfig:4"}}},
                      "test"),
      R"({"prepend_cwd":false,"retries":3,"copy_env":["HOME"],"env":{"A":"1","B":"2"},)"
      R"("queue":"q"})");
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"true", "true"}, {"1", "true"}, {"no", "false"}, {"0", "false"}, {"False", "false"}}) {
    std::map<std::string, RawOpt> raw = {{"queue", {"q", "-cfg"}},
                                         {"prepend_cwd", {text, ".sortieconfig:3"}}};
    EXPECT_NE(resolve_runopts(opts, raw, "test").find("\"prepend_cwd\":" + expected),
              std::string::npos)
        << text;
  }
}

TEST(RunoptsTest, ASensitiveOptionIsReadFromTrustedOriginsOnly) {
  const auto opts = parse_runopts(R"({"schema": "sortie.runopts/1", "options": [
    {"name": "token_command", "type": "str", "sensitive": true},
    {"name": "queue", "type": "str"}]})",
                                  "scheduler test");
  EXPECT_EQ(opts[0].effect, OptEffect::kSensitive);
  EXPECT_EQ(opts[1].effect, OptEffect::kNone);
  // An untrusted origin may still set what is not sensitive; a trusted one anything.
  EXPECT_EQ(resolve_runopts(opts,
                            {{"queue", {"q", "/repo/.sortieconfig:2", false}},
                             {"token_command", {"helper", "-cfg"}}},
                            "test"),
            R"({"token_command":"helper","queue":"q"})");
  const std::string refused = error_of([&] {
    resolve_runopts(opts, {{"token_command", {"curl evil", "/repo/.sortieconfig:3", false}}},
                    "test");
  });
  EXPECT_EQ(refused.rfind("/repo/.sortieconfig:3: run option 'token_command' of scheduler 'test' "
                          "runs a program",
                          0),
            0u)
      << refused;
  EXPECT_NE(refused.find("`sortie config trust /repo/.sortieconfig`"), std::string::npos)
      << refused;
}

// Issue 26 A2: the trust rule goes by what an option does, which the scheduler names.
TEST(RunoptsTest, AnOptionWithAnEffectIsRefusedFromAnUntrustedOriginNamingIt) {
  const auto opts = parse_runopts(R"({"schema": "sortie.runopts/1", "options": [
    {"name": "sbatch", "type": "str", "effect": "runs_program"},
    {"name": "privileged", "type": "bool", "effect": "widens_privilege"},
    {"name": "push_to", "type": "str", "effect": "sends_data"},
    {"name": "job_dir", "type": "str", "effect": "chooses_write_location"},
    {"name": "queue", "type": "str", "effect": "none"}]})",
                                  "scheduler test");
  EXPECT_EQ(opts[0].effect, OptEffect::kRunsProgram);
  EXPECT_EQ(opts[3].effect, OptEffect::kChoosesWriteLocation);
  EXPECT_EQ(resolve_runopts(opts, {{"queue", {"q", "/repo/.sortieconfig:2", false}}}, "test"),
            R"({"queue":"q"})");
  const std::map<std::string, std::string> words = {
      {"sbatch", "runs a program (effect runs_program)"},
      {"privileged", "widens privilege (effect widens_privilege)"},
      {"push_to", "chooses where data or credentials are sent (effect sends_data)"},
      {"job_dir", "chooses where files are written (effect chooses_write_location)"}};
  for (const auto& [name, effect] : words) {
    EXPECT_EQ(error_of([&] {
                resolve_runopts(opts, {{name, {"1", "/repo/.sortieconfig:4", false}}}, "test");
              }),
              "/repo/.sortieconfig:4: run option '" + name + "' of scheduler 'test' " + effect +
                  ", so [test] " + name +
                  " is not read from a .sortieconfig found in the working directory unless you "
                  "trust that file: read it, then run `sortie config trust /repo/.sortieconfig` "
                  "(or set the option in ~/.sortieconfig or with -cfg; docs/config-trust.md)");
    EXPECT_NO_THROW(resolve_runopts(opts, {{name, {"1", "-cfg"}}}, "test")) << name;
  }
}

TEST(RunoptsTest, AnEffectMustBeKnownAndAgreeWithSensitive) {
  EXPECT_EQ(error_of([] {
              parse_runopts(R"({"schema": "sortie.runopts/1", "options": [
                {"name": "x", "type": "str", "effect": "harmless"}]})",
                            "scheduler test");
            }),
            "scheduler test: options[0].effect: expected one of none, runs_program, "
            "widens_privilege, sends_data, chooses_write_location, got \"harmless\"");
  EXPECT_NE(error_of([] {
              parse_runopts(R"({"schema": "sortie.runopts/1", "options": [
                {"name": "x", "type": "str", "effect": "none", "sensitive": true}]})",
                            "scheduler test");
            }).find("\"sensitive\": true contradicts \"effect\": \"none\""),
            std::string::npos);
}

TEST(RunoptsTest, ResolveErrorsNameOptionOriginAndScheduler) {
  const auto opts = parse_runopts(kRunopts, "scheduler test");
  EXPECT_EQ(error_of([&] { resolve_runopts(opts, from_cfg("queue=q,log_dri=/x"), "test"); }),
            "scheduler 'test' has no run option 'log_dri' (set in -cfg) (did you mean 'log_dir'?); "
            "its options are: 'log_dir', 'prepend_cwd', 'retries', 'ratio', 'copy_env', 'env', "
            "'queue' (see `sortie runopts test`)");
  EXPECT_EQ(error_of([&] { resolve_runopts(opts, from_cfg("log_dir=/x"), "test"); }),
            "scheduler 'test': run option 'queue' (str) is required: the batch queue; set it "
            "with -cfg queue=VALUE or in .sortieconfig [test]");
  EXPECT_EQ(error_of([&] {
              resolve_runopts(opts,
                              {{"queue", {"q", "-cfg"}}, {"retries", {"many", ".sortieconfig:7"}}},
                              "test");
            }),
            "scheduler 'test': run option 'retries' (set in .sortieconfig:7): expected an int, got "
            "'many'");
  EXPECT_EQ(error_of([&] { resolve_runopts(opts, from_cfg("queue=q,ratio=1/2"), "test"); }),
            "scheduler 'test': run option 'ratio' (set in -cfg): expected a float, got '1/2'");
  EXPECT_EQ(error_of([&] { resolve_runopts(opts, from_cfg("queue=q,prepend_cwd=maybe"), "test"); }),
            "scheduler 'test': run option 'prepend_cwd' (set in -cfg): expected a bool "
            "(true/false, 1/0, yes/no), got 'maybe'");
  EXPECT_EQ(error_of([&] { resolve_runopts(opts, from_cfg("queue=q,env=novalue"), "test"); }),
            "scheduler 'test': run option 'env' (set in -cfg): expected a dict of KEY:VALUE pairs "
            "separated by ',' or ';' (item 'novalue'), got 'novalue'");
  EXPECT_EQ(error_of([&] { resolve_runopts({}, from_cfg("x=1"), "none"); }),
            "scheduler 'none' has no run option 'x' (set in -cfg); its options are: none (see "
            "`sortie runopts none`)");
}

}  // namespace
}  // namespace sortie::model
