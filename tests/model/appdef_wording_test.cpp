// Issue 12: an AppDef has one reader, the SDK's (sortie/appdef.hpp), so a bad field reads the
// same whether it arrives as a plugin payload, a JSON payload the host reads, a YAML or JSON
// spec file (which adds FILE:LINE:COL), or an app built in code.
#include <gtest/gtest.h>

#include <sortie/appdef.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/spec_file.hpp>
#include <string>
#include <vector>

#include "model_test_support.hpp"

namespace sortie::model {
namespace {

using testing::error_of;

struct BadField {
  std::string json_members;  // added to a role of a JSON AppDef
  std::string yaml_line;     // line 5 of a YAML spec, in the same role
  int yaml_column;           // where the offending value starts on that line
  std::string message;       // the SDK's wording
};

const std::vector<BadField> kBadFields = {
    {R"("num_replicas":0)", "num_replicas: 0", 19,
     "roles[0].num_replicas: must be at least 1, got 0"},
    {R"("num_replicas":"two")", "num_replicas: two", 19,
     R"(roles[0].num_replicas: expected an integer, got "two")"},
    {R"("max_retries":-1)", "max_retries: -1", 18,
     "roles[0].max_retries: must be at least 0, got -1"},
    {R"("retry_policy":"HOST")", "retry_policy: HOST", 19,
     R"(roles[0].retry_policy: expected "REPLICA", "APPLICATION" or "ROLE", got "HOST")"},
    {R"("args":["a",["b"]])", "args: [a, [b]]", 15,
     "roles[0].args[1]: expected a string, got an array"},
    {R"("port_map":{"http":0})", "port_map: {http: 0}", 22,
     "roles[0].port_map.http: must be a port number from 1 to 65535, got 0"},
    {R"("resource":{"cpu":-3})", "resource: {cpu: -3}", 21,
     "roles[0].resource.cpu: must be at least 0 (or -1: unset), got -3"},
    {R"("mounts":[{"type":"bind","src":"data","dst":"/d"}])",
     "mounts: [{type: bind, src: data, dst: /d}]", 32,
     R"(roles[0].mounts[0].src: must be an absolute host path, got "data")"},
};

std::string json_app(const std::string& members) {
  return R"({"name":"a","roles":[{"name":"r","entrypoint":"e",)" + members + "}]}";
}

TEST(AppdefWordingTest, OneBadFieldReadsTheSameInJsonAndYaml) {
  for (const BadField& bad : kBadFields) {
    SCOPED_TRACE(bad.yaml_line);
    EXPECT_EQ(error_of([&] { ::sortie::read_appdef(json_app(bad.json_members)); }), bad.message);
    EXPECT_EQ(error_of([&] { appdef_from_json(json_app(bad.json_members), "app.json"); }),
              "app.json: " + bad.message);
    const std::string yaml =
        "name: a\nroles:\n  - name: r\n    entrypoint: e\n    " + bad.yaml_line + "\n";
    EXPECT_EQ(error_of([&] { parse_app_spec(yaml, "spec.yaml", nullptr); }),
              "spec.yaml:5:" + std::to_string(bad.yaml_column) + ": " + bad.message);
  }
}

TEST(AppdefWordingTest, AJsonSpecFileReadsAsTheJsonPayloadDoes) {
  const std::string spec =
      "{\"name\": \"a\",\n \"roles\": [{\"name\": \"r\", \"entrypoint\": \"e\",\n"
      "  \"num_replicas\": 0}]}\n";
  EXPECT_EQ(error_of([&] { parse_app_spec(spec, "spec.json", nullptr); }),
            "spec.json:3:19: roles[0].num_replicas: must be at least 1, got 0");
}

TEST(AppdefWordingTest, AnAppBuiltInCodeIsCheckedByTheSameChecks) {
  AppDef app;
  app.name = "a";
  app.roles.push_back(Role{});
  app.roles[0].name = "r";
  app.roles[0].entrypoint = "e";
  app.roles[0].num_replicas = 0;
  EXPECT_EQ(error_of([&] { validate(app); }),
            "app 'a': roles[0].num_replicas: must be at least 1, got 0");
  app.roles[0].num_replicas = 1;
  app.roles[0].port_map = {{"http", 0}};
  EXPECT_EQ(error_of([&] { validate(app); }),
            "app 'a': roles[0].port_map.http: must be a port number from 1 to 65535, got 0");
}

}  // namespace
}  // namespace sortie::model
