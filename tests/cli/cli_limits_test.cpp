// Issue 16's findings F2 and F3, and issue 26's A1 and A4, as a user meets them: inputs nested or
// sized past the limits of docs/limits.md, or aliased into a cycle, are errors naming the limit or
// the line, never a crash of `sortie` or a runaway in memory.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "cli_harness.hpp"
#include "hostile_inputs.hpp"

namespace sortie::testing {
namespace {

// F2: a manifest nested 500,000 deep (1 MB, within the size limit) on the search path is one
// reported problem, where it was a crash of every command; every other plugin still works.
TEST(CliLimits, ADeeplyNestedManifestIsSkippedAndEverythingElseWorks) {
  CliSandbox sandbox;
  sandbox.write_file("extra/deep.json", nested_json_arrays(500000));
  const std::map<std::string, std::string> env{{"SORTIE_PLUGIN_PATH", sandbox.root() + "/extra"}};
  const auto list = sandbox.sortie({"plugins", "list"}, env);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(list.out, std::regex("sortie.schedulers +local_cwd "))) << list.out;
  EXPECT_NE(list.out.find("deep.json"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("its JSON nesting exceeds the limit of 128 levels of nesting"),
            std::string::npos)
      << list.out;
  const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "true"}, env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

// F2: an experiment file nested 25,000 deep.
TEST(CliLimits, ADeeplyNestedExperimentFileIsRefused) {
  CliSandbox sandbox;
  const std::string file = sandbox.write_file("cwd/deep.json", nested_json_objects(25000));
  const auto launch = sandbox.sortie({"launch", file});
  EXPECT_EQ(launch.exit_code, 2) << launch.err;
  EXPECT_NE(launch.err.find("deep.json: the JSON nesting exceeds the limit of 128 levels of "
                            "nesting (docs/limits.md L-1); raise it with SORTIE_LIMIT_JSON_DEPTH"),
            std::string::npos)
      << launch.err;
}

// F3: a YAML alias bomb of 409 bytes.
TEST(CliLimits, AnAliasBombInAnExperimentFileIsRefused) {
  CliSandbox sandbox;
  const std::string file = sandbox.write_file("cwd/bomb.yaml", yaml_alias_bomb());
  const auto launch = sandbox.sortie({"launch", file});
  EXPECT_EQ(launch.exit_code, 2) << launch.err;
  EXPECT_NE(launch.err.find("exceeds the limit of 100000 nodes (aliases expanded) "
                            "(docs/limits.md L-3); raise it with SORTIE_LIMIT_YAML_NODES=<n>"),
            std::string::npos)
      << launch.err;
}

// Issue 26, A1: an alias inside the node it names (15 bytes) crashed `launch` (SIGSEGV, rc 139):
// yaml-cpp resolves it to the node itself, and the reader walked that cycle until the stack
// overflowed. It is a usage error naming the file, line and column.
TEST(CliLimits, AnAliasCycleInAnExperimentFileIsRefused) {
  CliSandbox sandbox;
  const std::string file = sandbox.write_file("cwd/cycle.yaml", "title: &a [*a]\n");
  const auto launch = sandbox.sortie({"launch", file});
  EXPECT_EQ(launch.exit_code, 2) << launch.err;
  EXPECT_NE(launch.err.find(file + ":1:12: an alias refers to a node that contains it (a cycle); "
                                   "*a is inside the node anchored &a at 1:8"),
            std::string::npos)
      << launch.err;
}

// Issue 26, A1: the same in a spec crashed `run --dryrun --spec`; a role aliased inside its own
// args first grew to 2.15 GB.
TEST(CliLimits, AnAliasCycleInASpecFileIsRefused) {
  CliSandbox sandbox;
  for (const auto& [text, location] : std::vector<std::pair<std::string, std::string>>{
           {"name: &n [*n]\n", ":1:11: "},
           {"name: r\nroles:\n  - &r\n    name: main\n    entrypoint: echo\n    args: [*r]\n",
            ":6:12: "}}) {
    const std::string file = sandbox.write_file("cwd/cycle.yaml", text);
    const auto run = sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "--spec", file});
    EXPECT_EQ(run.exit_code, 2) << text << run.err;
    EXPECT_NE(
        run.err.find(file + location + "an alias refers to a node that contains it (a cycle)"),
        std::string::npos)
        << run.err;
  }
}

// F3: num_replicas: 2147483647 under --dryrun; the limit itself is accepted.
TEST(CliLimits, ReplicasPastTheLimitAreRefusedAtTheLimitAccepted) {
  CliSandbox sandbox;
  const auto spec_with = [&](const std::string& replicas) {
    return sandbox.write_file("cwd/many.yaml",
                              "name: many\nroles:\n  - name: main\n"
                              "    entrypoint: echo\n    num_replicas: " +
                                  replicas + "\n");
  };
  const auto refused =
      sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "--spec", spec_with("2147483647")});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("num_replicas: 2147483647 exceeds the limit of 10000 replicas "
                             "(docs/limits.md L-13); raise it with "
                             "SORTIE_LIMIT_REPLICAS_PER_ROLE=<n>"),
            std::string::npos)
      << refused.err;
  const auto raised =
      sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "--spec", spec_with("10001")},
                     {{"SORTIE_LIMIT_REPLICAS_PER_ROLE", "10001"}});
  EXPECT_EQ(raised.exit_code, 0) << raised.err;
  const auto at_limit =
      sandbox.sortie({"run", "-s", "local_cwd", "--dryrun", "--spec", spec_with("10000")});
  EXPECT_EQ(at_limit.exit_code, 0) << at_limit.err;
}

// A4: glibc's regcomp writes every x{m,n} out, so this 27-byte pattern took 1.3 GB and seconds
// to compile; it is refused on its text (L-15) before regcomp, and an ordinary bound still works.
TEST(CliLimits, ARegexWhoseRepetitionsMultiplyIsRefusedQuickly) {
  CliSandbox sandbox;
  const CommandResult run =
      sandbox.sortie({"run", "-s", "local_cwd", "--wait", "--", "echo", "aaab"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string handle = first_line(run.out);
  const auto start = std::chrono::steady_clock::now();
  const CommandResult refused =
      sandbox.sortie({"log", handle, "--regex", "((a{1,100}){1,100}){1,100}b"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("the pattern with its repetitions written out exceeds the limit of "
                             "2000 atoms (docs/limits.md L-15); raise it with "
                             "SORTIE_LIMIT_REGEX_ATOMS=<n>"),
            std::string::npos)
      << refused.err;
  const CommandResult bounded =
      sandbox.sortie({"log", handle, "--no-prefix", "--regex", "^(a{1,10}){1,3}b$"});
  EXPECT_EQ(bounded.exit_code, 0) << bounded.err;
  EXPECT_EQ(bounded.out, "aaab\n");
}

}  // namespace
}  // namespace sortie::testing
