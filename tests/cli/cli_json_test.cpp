// `--json` on every read command (docs/cli-json.md), end to end through the real binary: stdout
// is one JSON document of the documented schema, and errors still go to stderr with the usual
// exit status and nothing on stdout.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "cli_harness.hpp"
#include "cli_json_support.hpp"

namespace sortie::testing {
namespace {

TEST(CliJson, RunoptsGivesEachOptionTypedWithItsDefault) {
  CliSandbox sandbox;
  const CommandResult one = sandbox.sortie({"runopts", "local_cwd", "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const rapidjson::Document document = parse_document(one.out, "sortie.cli.runopts/1");
  ASSERT_EQ(document["schedulers"].Size(), 1u) << one.out;
  const rapidjson::Value& local = document["schedulers"][0];
  EXPECT_STREQ(local["scheduler"].GetString(), "local_cwd");
  const rapidjson::Value& prepend = element_named(local["options"], "prepend_cwd");
  EXPECT_STREQ(prepend["type"].GetString(), "bool");
  EXPECT_TRUE(prepend["default"].IsBool()) << one.out;  // a typed JSON value, not text
  EXPECT_FALSE(prepend["required"].GetBool());
  EXPECT_STREQ(prepend["effect"].GetString(), "runs_program");
  EXPECT_STREQ(element_named(local["options"], "gpu_devices")["effect"].GetString(), "none");
  EXPECT_FALSE(std::string(prepend["help"].GetString()).empty());
  EXPECT_TRUE(element_named(local["options"], "log_dir")["default"].IsNull()) << one.out;

  const CommandResult all = sandbox.sortie({"runopts", "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const rapidjson::Document every = parse_document(all.out, "sortie.cli.runopts/1");
  std::set<std::string> names;
  for (const auto& scheduler : every["schedulers"].GetArray()) {
    names.insert(scheduler["scheduler"].GetString());
  }
  for (const char* name : {"local_cwd", "local_dir", "kubernetes", "vertex"}) {
    EXPECT_EQ(names.count(name), 1u) << name << " missing in " << all.out;
  }
}

TEST(CliJson, ResourcesGiveTheRequestOfEachNamedResource) {
  CliSandbox sandbox;
  sandbox.write_file("extra/acme.json", R"({"file_format_version": "1.0", "provides": [
    {"group": "sortie.named_resources", "name": "acme.tiny", "description": "d",
     "resource": {"cpu": 0.5, "gpu": 0, "memMB": 512,
                  "capabilities": {"acme.com/zone": "7"}, "devices": {"acme.com/fpga": 2}}}]})");
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}};
  const CommandResult all = sandbox.sortie({"resources", "--json"}, env);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const rapidjson::Document document = parse_document(all.out, "sortie.cli.resources/1");
  const rapidjson::Value& tiny = element_named(document["resources"], "acme.tiny");
  EXPECT_EQ(tiny["manifest"].GetString(), sandbox.root() + "/extra/acme.json");
  EXPECT_TRUE(tiny["plugin"].IsNull());
  const rapidjson::Value& resource = tiny["resource"];
  EXPECT_STREQ(resource["schema"].GetString(), "sortie.resource/1");
  EXPECT_DOUBLE_EQ(resource["cpu"].GetDouble(), 0.5);
  EXPECT_EQ(resource["memMB"].GetInt(), 512);
  EXPECT_STREQ(resource["capabilities"]["acme.com/zone"].GetString(), "7");
  EXPECT_EQ(resource["devices"]["acme.com/fpga"].GetInt(), 2);
  EXPECT_EQ(element_named(document["resources"], "gpu.small")["resource"]["gpu"].GetInt(), 1);

  // Naming one gives the same document with that resource alone.
  const CommandResult one = sandbox.sortie({"resources", "acme.tiny", "--json"}, env);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const rapidjson::Document single = parse_document(one.out, "sortie.cli.resources/1");
  ASSERT_EQ(single["resources"].Size(), 1u) << one.out;
  EXPECT_TRUE(single["resources"][0] == tiny) << one.out;
}

TEST(CliJson, BuiltinsListEachComponentWithItsParameters) {
  CliSandbox sandbox;
  const CommandResult builtins = sandbox.sortie({"builtins", "--json"});
  ASSERT_EQ(builtins.exit_code, 0) << builtins.err;
  const rapidjson::Document document = parse_document(builtins.out, "sortie.cli.builtins/1");
  const rapidjson::Value& spmd = element_named(document["components"], "dist.spmd");
  EXPECT_FALSE(std::string(spmd["description"].GetString()).empty());
  EXPECT_TRUE(std::filesystem::exists(spmd["manifest"].GetString())) << builtins.out;
  const rapidjson::Value& command = element_named(spmd["params"], "command");
  EXPECT_STREQ(command["type"].GetString(), "list");
  EXPECT_TRUE(command["positional"].GetBool());
  const rapidjson::Value& replicas = element_named(spmd["params"], "j");
  EXPECT_STREQ(replicas["type"].GetString(), "int");
  EXPECT_TRUE(replicas["default"].IsInt()) << builtins.out;
  for (const char* name : {"utils.echo", "utils.sh", "utils.python"}) {
    element_named(document["components"], name);
  }
}

TEST(CliJson, PluginsListAndShowDescribeThePlugins) {
  CliSandbox sandbox;
  const CommandResult list = sandbox.sortie({"plugins", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const rapidjson::Document plugins = parse_document(list.out, "sortie.cli.plugins/1");
  bool found = false;
  for (const auto& entry : plugins["entries"].GetArray()) {
    if (std::string(entry["group"].GetString()) == "sortie.schedulers" &&
        std::string(entry["name"].GetString()) == "local_cwd") {
      found = true;
      EXPECT_STREQ(entry["plugin"].GetString(), "sortie_local");
      EXPECT_TRUE(std::filesystem::exists(entry["library"].GetString())) << list.out;
    }
  }
  EXPECT_TRUE(found) << list.out;
  const rapidjson::Value& data_entry = element_named(plugins["entries"], "utils.echo");
  EXPECT_TRUE(data_entry["plugin"].IsNull()) << list.out;  // a data entry: no library
  EXPECT_TRUE(data_entry["library"].IsNull()) << list.out;
  EXPECT_TRUE(plugins["shadowed"].IsArray());
  EXPECT_TRUE(plugins["problems"].IsArray());

  const CommandResult show = sandbox.sortie({"plugins", "show", "local_cwd", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const rapidjson::Document plugin = parse_document(show.out, "sortie.cli.plugin/1");
  EXPECT_STREQ(plugin["plugin"].GetString(), "sortie_local");
  EXPECT_STREQ(plugin["negotiated_name"].GetString(), "sortie_local");
  EXPECT_TRUE(std::regex_match(plugin["abi"].GetString(), std::regex("[0-9]+\\.[0-9]+")));
  EXPECT_TRUE(
      std::regex_match(plugin["manifest_abi"]["min"].GetString(), std::regex("[0-9]+\\.[0-9]+")));
  EXPECT_TRUE(std::filesystem::exists(plugin["library"].GetString())) << show.out;
  EXPECT_TRUE(std::filesystem::exists(plugin["manifest"].GetString())) << show.out;
  const rapidjson::Value& local_dir = element_named(plugin["components"], "local_dir");
  EXPECT_STREQ(local_dir["kind"].GetString(), "scheduler");
  EXPECT_STREQ(element_named(plugin["components"], "cwd")["kind"].GetString(), "image provider");
  EXPECT_TRUE(plugin["notes"].IsArray());
}

TEST(CliJson, ExperimentsListAndShowGiveWorkUnitsAndTheirJobs) {
  CliSandbox sandbox;
  const std::string script = sandbox.write_file("cwd/job.sh", "#!/bin/sh\necho \"$*\"\n");
  ::chmod(script.c_str(), 0755);
  const std::string file = sandbox.write_file("cwd/sweep.yaml", R"(title: json sweep
executables:
  trainer: {binary: ./job.sh}
job:
  executable: trainer
  name: train
sweep:
  product: {lr: [0.1, 0.01]}
)");
  const CommandResult launched = sandbox.sortie({"launch", file});
  ASSERT_EQ(launched.exit_code, 0) << launched.err;

  const CommandResult list = sandbox.sortie({"experiments", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const rapidjson::Document experiments = parse_document(list.out, "sortie.cli.experiments/1");
  ASSERT_EQ(experiments["experiments"].Size(), 1u) << list.out;
  const rapidjson::Value& listed = experiments["experiments"][0];
  EXPECT_STREQ(listed["title"].GetString(), "json sweep");
  EXPECT_EQ(listed["work_units"].GetInt(), 2);
  EXPECT_GT(listed["created_at"].GetInt64(), 0);
  EXPECT_GE(listed["states"].Size(), 1u) << list.out;
  const std::string id = std::to_string(listed["id"].GetInt64());

  // Shown until its jobs are done, as the jobs exit at once.
  rapidjson::Document shown;
  for (int attempt = 0; attempt < 400; ++attempt) {
    const CommandResult show = sandbox.sortie({"experiments", "show", id, "--json"});
    ASSERT_EQ(show.exit_code, 0) << show.err;
    shown = parse_document(show.out, "sortie.cli.experiment/1");
    if (std::string(shown["state"].GetString()) == "SUCCEEDED") break;
    ::usleep(50'000);
  }
  EXPECT_STREQ(shown["state"].GetString(), "SUCCEEDED");
  EXPECT_EQ(std::to_string(shown["id"].GetInt64()), id);
  EXPECT_STREQ(shown["title"].GetString(), "json sweep");
  ASSERT_EQ(shown["work_units"].Size(), 2u);
  for (rapidjson::SizeType unit = 0; unit < 2; ++unit) {
    const rapidjson::Value& work_unit = shown["work_units"][unit];
    EXPECT_EQ(work_unit["id"].GetInt(), static_cast<int>(unit) + 1);
    EXPECT_STREQ(work_unit["state"].GetString(), "SUCCEEDED");
    ASSERT_EQ(work_unit["jobs"].Size(), 1u);
    const rapidjson::Value& job = work_unit["jobs"][0];
    EXPECT_EQ(job["name"].GetString(), id + "_" + std::to_string(unit + 1) + "_train");
    EXPECT_TRUE(std::regex_match(job["app"].GetString(), std::regex("local_cwd://default/.+")))
        << job["app"].GetString();
    EXPECT_STREQ(job["role"].GetString(), "train");
  }
}

TEST(CliJson, ListDescribeAndStatusCarryTheirSchemas) {
  CliSandbox sandbox;
  const CommandResult run = sandbox.sortie({"run", "-s", "local_cwd", "--", "echo", "hi"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);
  sandbox.wait_terminal(handle);

  const CommandResult list = sandbox.sortie({"list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const rapidjson::Document apps = parse_document(list.out, "sortie.cli.list/1");
  ASSERT_EQ(apps["apps"].Size(), 1u) << list.out;
  EXPECT_EQ(apps["apps"][0]["handle"].GetString(), handle);
  EXPECT_STREQ(apps["apps"][0]["state"].GetString(), "SUCCEEDED");
  EXPECT_TRUE(apps["apps"][0]["unverified"].IsNull()) << list.out;
  EXPECT_GT(apps["apps"][0]["submitted_at"].GetInt64(), 0);

  const CommandResult describe = sandbox.sortie({"describe", handle, "--json"});
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  const rapidjson::Document described = parse_document(describe.out, "sortie.cli.describe/1");
  EXPECT_EQ(described["handle"].GetString(), handle);
  EXPECT_STREQ(described["app"]["name"].GetString(), "echo");
  EXPECT_STREQ(described["status"]["state"].GetString(), "SUCCEEDED");

  const CommandResult status = sandbox.sortie({"status", handle, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_STREQ(parse_document(status.out, "sortie.status/1")["state"].GetString(), "SUCCEEDED");
}

TEST(CliJson, ErrorsGoToStderrWithTheUsualExitStatus) {
  CliSandbox sandbox;
  const CommandResult bad_id = sandbox.sortie({"experiments", "show", "first", "--json"});
  EXPECT_EQ(bad_id.exit_code, 2);
  EXPECT_EQ(bad_id.out, "");
  EXPECT_NE(bad_id.err.find("'first' is not a positive number"), std::string::npos) << bad_id.err;

  const CommandResult unknown_app =
      sandbox.sortie({"status", "local_cwd://default/nosuch-0123456789", "--json"});
  EXPECT_EQ(unknown_app.exit_code, 1);
  EXPECT_EQ(unknown_app.out, "");
  EXPECT_NE(unknown_app.err.find("nosuch-0123456789"), std::string::npos) << unknown_app.err;

  // A scheduler that answers run_options with an invalid payload is a plugin failure.
  sandbox.write_file("extra/wrong.json", R"({"file_format_version": "1.0",
 "plugin": {"name": "fixture_wrong_schema", "version": "1", "library": ")" +
                                             std::string(WRONG_SCHEMA_PLUGIN_PATH) + R"(",
            "abi": {"min": "1.0", "max": "1.0"}},
 "provides": [{"group": "sortie.schedulers", "name": "fixture_sched"}]})");
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}};
  const CommandResult wrong = sandbox.sortie({"runopts", "fixture_sched", "--json"}, env);
  EXPECT_EQ(wrong.exit_code, 3);
  EXPECT_EQ(wrong.out, "");
  EXPECT_NE(wrong.err.find("run_options returned an invalid payload"), std::string::npos)
      << wrong.err;

  // Listing every scheduler still prints the ones that answered, and fails.
  const CommandResult all = sandbox.sortie({"runopts", "--json"}, env);
  EXPECT_EQ(all.exit_code, 3);
  EXPECT_NE(all.err.find("fixture_sched"), std::string::npos) << all.err;
  const rapidjson::Document document = parse_document(all.out, "sortie.cli.runopts/1");
  bool local_listed = false;
  for (const auto& scheduler : document["schedulers"].GetArray()) {
    EXPECT_STRNE(scheduler["scheduler"].GetString(), "fixture_sched");
    local_listed = local_listed || std::string(scheduler["scheduler"].GetString()) == "local_cwd";
  }
  EXPECT_TRUE(local_listed) << all.out;
}

}  // namespace
}  // namespace sortie::testing
