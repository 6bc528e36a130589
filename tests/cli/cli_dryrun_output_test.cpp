// `sortie run --dryrun -o json|yaml` (docs/cli-json.md, "run --dryrun -o"): stdout is only the
// scheduler's document, and the YAML stream reads back (yaml-cpp) as exactly the JSON one, strings
// that look like numbers, booleans, null or dates included.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <yaml-cpp/yaml.h>

#include <regex>
#include <string>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

// What a YAML reader makes of a plain (unquoted) scalar, under YAML 1.2's core schema or YAML
// 1.1's (kubectl's reader still takes yes/on for booleans and reads dates and sexagesimals).
// Text read as something this test does not model becomes {"unmodelled": TEXT}, which no JSON
// value of the document equals.
rapidjson::Value resolve_plain(const std::string& text, Allocator& a) {
  static const std::regex null_text("~|null|Null|NULL|");
  static const std::regex true_text("true|True|TRUE|y|Y|yes|Yes|YES|on|On|ON");
  static const std::regex false_text("false|False|FALSE|n|N|no|No|NO|off|Off|OFF");
  static const std::regex decimal("[-+]?(0|[1-9][0-9]*)");
  static const std::regex real("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  static const std::regex other_number(
      "[-+]?(0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(:[0-5]?[0-9])+|"
      "[0-9][0-9_]*(\\.[0-9_]*)?([eE][-+]?[0-9]+)?|\\.(inf|Inf|INF))|\\.(nan|NaN|NAN)|"
      "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*|<<|=");
  if (std::regex_match(text, null_text)) return rapidjson::Value();
  if (std::regex_match(text, true_text)) return rapidjson::Value(true);
  if (std::regex_match(text, false_text)) return rapidjson::Value(false);
  if (std::regex_match(text, decimal)) return rapidjson::Value(int64_t{std::stoll(text)});
  if (std::regex_match(text, real)) return rapidjson::Value(std::stod(text));
  if (std::regex_match(text, other_number)) {
    rapidjson::Value marker(rapidjson::kObjectType);
    marker.AddMember("unmodelled", rapidjson::Value(text.c_str(), a), a);
    return marker;
  }
  return rapidjson::Value(text.c_str(), a);
}

rapidjson::Value to_json(const YAML::Node& node, Allocator& a) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      rapidjson::Value object(rapidjson::kObjectType);
      for (const auto& member : node) {
        // A key must read back as the same string too; one that does not gets a name no JSON
        // document of sortie's has.
        const rapidjson::Value key = to_json(member.first, a);
        const std::string name =
            key.IsString() ? key.GetString() : "not a string: " + member.first.Scalar();
        object.AddMember(rapidjson::Value(name.c_str(), a), to_json(member.second, a), a);
      }
      return object;
    }
    case YAML::NodeType::Sequence: {
      rapidjson::Value array(rapidjson::kArrayType);
      for (const auto& item : node) array.PushBack(to_json(item, a), a);
      return array;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags a quoted scalar "!" and a plain one "?".
      if (node.Tag() == "!") return rapidjson::Value(node.Scalar().c_str(), a);
      return resolve_plain(node.Scalar(), a);
    default:
      return rapidjson::Value();
  }
}

// Every `<prefix>-<10 characters>` app id made the same, as each run proposes a fresh one.
std::string without_app_ids(const std::string& text, const std::string& prefix) {
  return std::regex_replace(text, std::regex(prefix + "-[0-9a-z]{10}"), prefix + "-APPID");
}

// The documents of `sortie run ARGS --dryrun -o yaml`, read back, and `-o json`'s document.
struct BothForms {
  rapidjson::Document yaml{rapidjson::kArrayType};
  rapidjson::Document json;
  std::string yaml_text;
};

BothForms dryrun_both_ways(const CliSandbox& sandbox, std::vector<std::string> args,
                           const std::string& app_name) {
  args.insert(args.begin(), {"run", "--dryrun"});
  BothForms forms;
  std::vector<std::string> as_yaml = args;
  as_yaml.insert(as_yaml.begin() + 2, {"-o", "yaml"});
  const CommandResult yaml = sandbox.sortie(as_yaml);
  if (yaml.exit_code != 0) throw std::runtime_error("-o yaml failed: " + yaml.err);
  forms.yaml_text = without_app_ids(yaml.out, app_name);
  for (const YAML::Node& document : YAML::LoadAll(forms.yaml_text)) {
    forms.yaml.PushBack(to_json(document, forms.yaml.GetAllocator()), forms.yaml.GetAllocator());
  }
  std::vector<std::string> as_json = args;
  as_json.insert(as_json.begin() + 2, {"-o", "json"});
  const CommandResult json = sandbox.sortie(as_json);
  if (json.exit_code != 0) throw std::runtime_error("-o json failed: " + json.err);
  forms.json.Parse(without_app_ids(json.out, app_name).c_str());
  if (forms.json.HasParseError()) throw std::runtime_error("-o json is not JSON:\n" + json.out);
  return forms;
}

TEST(CliDryrunOutput, KubernetesYamlIsOneDocumentPerManifestAndReadsBackAsTheJsonList) {
  CliSandbox sandbox;
  const std::string spec = sandbox.write_file("quoting.yaml", R"(name: quoting
roles:
  - name: main
    image: busybox:1.36
    entrypoint: echo
    args: ["1", "true", "~", "-5", ".5", "0x1F", "plain words", "a: b", "#hash", "---",
           "carriage\r", "tab\there", " lead", "trail "]
    env: {INT: "1", BOOL: "true", YES: "yes", ON: "on", NULL_WORD: "null", TILDE: "~",
          HEX: "0x10", OCTAL: "0o17", EXP: "1e3", FLOAT: "3.14", DATE: "2024-01-01",
          TIME: "12:30", INF: ".inf", EMPTY: "", NEG: "-7", Y: "y", MERGE: "<<"}
    num_replicas: 2
    port_map: {http: 8080}
)");
  const BothForms forms =
      dryrun_both_ways(sandbox, {"-s", "kubernetes", "--spec", spec}, "quoting");
  EXPECT_EQ(forms.yaml_text.rfind("---\n", 0), 0u) << forms.yaml_text;
  EXPECT_EQ(forms.yaml_text.find("==="), std::string::npos) << forms.yaml_text;
  ASSERT_TRUE(forms.json.IsObject());
  EXPECT_STREQ(forms.json["apiVersion"].GetString(), "v1");
  EXPECT_STREQ(forms.json["kind"].GetString(), "List");
  const rapidjson::Value& items = forms.json["items"];
  ASSERT_EQ(forms.yaml.Size(), items.Size()) << forms.yaml_text;
  ASSERT_GE(items.Size(), 2u);  // the role's Job and the app's Service
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
    EXPECT_TRUE(forms.yaml[i] == items[i]) << "document " << i << " differs:\n" << forms.yaml_text;
  }
  // The values the check is about made it into the manifests.
  EXPECT_NE(forms.yaml_text.find("\"2024-01-01\""), std::string::npos) << forms.yaml_text;
  EXPECT_NE(forms.yaml_text.find("\"yes\""), std::string::npos) << forms.yaml_text;
}

TEST(CliDryrunOutput, LocalRequestIsOneDocumentBothWays) {
  CliSandbox sandbox;
  const BothForms forms =
      dryrun_both_ways(sandbox, {"-s", "local_cwd", "utils.echo", "--msg", "007"}, "echo");
  ASSERT_EQ(forms.yaml.Size(), 1u) << forms.yaml_text;
  EXPECT_TRUE(forms.yaml[0] == forms.json) << forms.yaml_text;
  EXPECT_STREQ(forms.json["app_id"].GetString(), "echo-APPID");
  EXPECT_STREQ(forms.json["roles"][0]["replicas"][0]["argv"][1].GetString(), "007");
}

TEST(CliDryrunOutput, VertexJsonIsTheCustomJobBodyAlone) {
  CliSandbox sandbox;
  const std::string spec = sandbox.write_file("two_pools.yaml", R"(name: pools
roles:
  - {name: chief, image: "gcr.io/p/i:1", entrypoint: python, env: {N: "64"}}
  - {name: worker, image: "gcr.io/p/i:1", entrypoint: python, num_replicas: 3}
)");
  const CommandResult json =
      sandbox.sortie({"run", "-s", "vertex", "-cfg", "project=p,location=us-central1", "--dryrun",
                      "-o", "json", "--spec", spec});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  rapidjson::Document body;
  body.Parse(json.out.c_str());
  ASSERT_FALSE(body.HasParseError()) << json.out;
  EXPECT_TRUE(std::regex_match(body["displayName"].GetString(), std::regex("pools-[0-9a-z]+")));
  const rapidjson::Value& pools = body["jobSpec"]["workerPoolSpecs"];
  ASSERT_EQ(pools.Size(), 2u) << json.out;
  EXPECT_STREQ(pools[1]["replicaCount"].GetString(), "3");  // int64 as a string, as proto3 JSON
}

TEST(CliDryrunOutput, OutputNeedsDryrunAndAKnownFormat) {
  CliSandbox sandbox;
  const CommandResult no_dryrun =
      sandbox.sortie({"run", "-s", "local_cwd", "-o", "json", "--", "true"});
  EXPECT_EQ(no_dryrun.exit_code, 2);
  EXPECT_NE(no_dryrun.err.find("-o/--output applies only with --dryrun"), std::string::npos)
      << no_dryrun.err;
  const CommandResult xml =
      sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "-o", "xml", "--", "true"});
  EXPECT_EQ(xml.exit_code, 2);
  EXPECT_NE(xml.err.find("'xml': expected json or yaml"), std::string::npos) << xml.err;
  // Nothing was submitted.
  const CommandResult list = sandbox.sortie({"list", "--json"});
  EXPECT_NE(list.out.find("\"apps\":[]"), std::string::npos) << list.out;
}

}  // namespace
}  // namespace sortie::testing
