// Issue 26 A2, through the real binary: every run option of every in-tree scheduler says what it
// does (its effect), docs/config-trust.md's table says the same, and an untrusted .sortieconfig
// setting the option is refused exactly when the effect is not "none".
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_harness.hpp"

namespace sortie::testing {
namespace {

struct DeclaredOption {
  std::string type;
  std::string effect;
  std::string default_text;  // the default as a .sortieconfig value; "" when none
};

// (scheduler, option) -> what `sortie runopts --json` says of it.
using OptionTable = std::map<std::pair<std::string, std::string>, DeclaredOption>;

std::string ini_text(const rapidjson::Value& value) {
  if (value.IsString()) return value.GetString();
  if (value.IsBool()) return value.GetBool() ? "true" : "false";
  if (value.IsInt64()) return std::to_string(value.GetInt64());
  if (value.IsNumber()) return std::to_string(value.GetDouble());
  return "";
}

OptionTable declared_options(const CliSandbox& sandbox) {
  const CommandResult runopts = sandbox.sortie({"runopts", "--json"});
  EXPECT_EQ(runopts.exit_code, 0) << runopts.err;
  rapidjson::Document document;
  document.Parse(runopts.out.c_str());
  EXPECT_TRUE(document.IsObject()) << runopts.out;
  OptionTable table;
  if (!document.IsObject()) return table;
  for (const auto& scheduler : document["schedulers"].GetArray()) {
    for (const auto& option : scheduler["options"].GetArray()) {
      const bool has_effect = option.HasMember("effect") && option["effect"].IsString();
      table[{scheduler["scheduler"].GetString(), option["name"].GetString()}] = {
          option["type"].GetString(), has_effect ? option["effect"].GetString() : "(none given)",
          ini_text(option["default"])};
    }
  }
  return table;
}

// The rows of the table under "| Scheduler | Option | Effect |" in docs/config-trust.md, one
// entry per scheduler a row names ("`local_cwd`, `local_dir`").
std::map<std::pair<std::string, std::string>, std::string> documented_effects() {
  std::ifstream doc(std::string(SORTIE_TEST_SOURCE_DIR) + "/../../docs/config-trust.md");
  std::map<std::pair<std::string, std::string>, std::string> effects;
  bool in_table = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("| Scheduler | Option | Effect |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    if (line.empty() || line[0] != '|') break;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(cell);
    const auto unquoted = [](const std::string& cell) {
      std::string names;
      for (const char c : cell) {
        if (c != '`' && c != ' ') names += c;
      }
      return names;
    };
    std::istringstream schedulers(unquoted(cells.at(0)));
    for (std::string scheduler; std::getline(schedulers, scheduler, ',');) {
      effects[{scheduler, unquoted(cells.at(1))}] = unquoted(cells.at(2));
    }
  }
  return effects;
}

TEST(CliTrustTable, EveryRunOptionIsClassifiedAndDocumentedWithItsEffect) {
  CliSandbox sandbox;
  const OptionTable declared = declared_options(sandbox);
  const auto documented = documented_effects();
  std::set<std::string> schedulers;
  for (const auto& [key, option] : declared) {
    schedulers.insert(key.first);
    EXPECT_NE(option.effect, "sensitive")
        << key.first << " " << key.second << ": an in-tree option names its effect";
    const auto row = documented.find(key);
    if (row == documented.end()) {
      ADD_FAILURE() << "docs/config-trust.md's table has no row for option '" << key.second
                    << "' of " << key.first << " (effect " << option.effect << ")";
      continue;
    }
    EXPECT_EQ(row->second, option.effect) << key.first << " " << key.second;
  }
  for (const auto& [key, effect] : documented) {
    EXPECT_EQ(declared.count(key), 1u)
        << "docs/config-trust.md names option '" << key.second << "' of " << key.first
        << ", which `sortie runopts` does not list";
  }
  for (const char* name :
       {"local_cwd", "local_dir", "local_docker", "slurm", "kubernetes", "vertex"}) {
    EXPECT_EQ(schedulers.count(name), 1u) << name;
  }
}

// Lines every walked file holds for a scheduler, so that its dryrun needs nothing else, and
// the options some options need beside them: each an option whose effect is none, which an
// untrusted file may set.
std::string base_lines(const std::string& scheduler, const std::string& walked) {
  static const std::map<std::string, std::string> kCompanions = {
      {"gpu_devices", "auto_set_cuda_visible_devices = true\n"},
      {"accelerator_count", "accelerator = t4\n"},
      {"tpu_topology", "accelerator = tpu_v3\n"},
  };
  std::string lines;
  if ((scheduler == "vertex" || scheduler == "caip") && walked != "project")
    lines += "project = p\n";
  if (scheduler == "local_docker" && walked != "image_provider") lines += "image_provider =\n";
  if (const auto companion = kCompanions.find(walked); companion != kCompanions.end()) {
    lines += companion->second;
  }
  return lines;
}

// A value the scheduler takes for the option: its default, or one of its type, or the few that
// a scheduler checks the form of.
std::string sample_value(const std::string& name, const DeclaredOption& option) {
  static const std::map<std::string, std::string> kChecked = {
      {"tensorboard", "projects/p/locations/us-central1/tensorboards/1"},
      {"network", "projects/1/global/networks/n"},
      {"base_output_dir", "gs://bucket/out"},
      {"boot_disk_type", "pd-ssd"},
      {"accelerator", "t4"},
      {"tpu_topology", "2x2"},
      {"labels", "team:ml"},
      {"time", "30"},
      {"mail_type", "END"},
      {"image_repo", "localhost:5000/team/x"},
      {"image_provider", ""},  // the role's image as it is
  };
  if (const auto checked = kChecked.find(name); checked != kChecked.end()) return checked->second;
  if (!option.default_text.empty()) return option.default_text;
  if (option.type == "int" || option.type == "float") return "1";
  if (option.type == "bool") return "true";
  if (option.type == "dict") return "A:1";
  return "x";
}

TEST(CliTrustTable, AnUntrustedConfigSetsEveryOptionWithoutAnEffectAndNoOther) {
  CliSandbox sandbox;
  for (const auto& [key, option] : declared_options(sandbox)) {
    const auto& [scheduler, name] = key;
    const std::string base = base_lines(scheduler, name);
    const int line = 2 + static_cast<int>(std::count(base.begin(), base.end(), '\n'));
    sandbox.write_file("cwd/.sortieconfig", "[" + scheduler + "]\n" + base + name + " = " +
                                                sample_value(name, option) + "\n");
    // local_cwd and local_dir run in a directory, the others in a container image.
    const bool in_directory = scheduler == "local_cwd" || scheduler == "local_dir";
    const std::string image = in_directory ? sandbox.cwd() : "python:3.11";
    const CommandResult run =
        sandbox.sortie({"run", "-s", scheduler, "--dryrun", "--image", image, "--", "true"},
                       {{"GOOGLE_OAUTH_ACCESS_TOKEN", ""}});
    const std::string refusal = sandbox.cwd() + "/.sortieconfig:" + std::to_string(line) +
                                ": run option '" + name + "' of scheduler '" + scheduler + "' ";
    if (option.effect == "none") {
      EXPECT_EQ(run.exit_code, 0) << scheduler << " " << name << ": " << run.err;
      EXPECT_EQ(run.err.find(refusal), std::string::npos) << run.err;
    } else {
      EXPECT_EQ(run.exit_code, 2) << scheduler << " " << name << ": " << run.err;
      EXPECT_NE(run.err.find(refusal), std::string::npos) << run.err;
      EXPECT_NE(run.err.find("(effect " + option.effect + "), so [" + scheduler + "] " + name +
                             " is not read"),
                std::string::npos)
          << run.err;
      EXPECT_NE(run.err.find("sortie config trust " + sandbox.cwd() + "/.sortieconfig"),
                std::string::npos)
          << run.err;
    }
  }
}

}  // namespace
}  // namespace sortie::testing
