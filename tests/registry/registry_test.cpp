// Tests for sortie/registry/registry.hpp: search order, manifest format and resolution.
#include <gtest/gtest.h>
#include <sortie/plugin_abi.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sortie/registry/install_location.hpp>
#include <sortie/registry/registry.hpp>
#include <string>
#include <vector>

#include "hostile_inputs.hpp"

namespace sortie::registry {
namespace {

namespace fs = std::filesystem;

constexpr const char* kEnvironment[] = {"SORTIE_PLUGIN_DIRS",
                                        "SORTIE_PLUGIN_PATH",
                                        "XDG_CONFIG_HOME",
                                        "XDG_CONFIG_DIRS",
                                        "XDG_DATA_HOME",
                                        "XDG_DATA_DIRS",
                                        "HOME"};

// Every test starts with the variables above unset and a fresh scratch directory; the variables
// are restored afterwards.
class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kEnvironment) {
      const char* value = getenv(name);
      saved_[name] = value == nullptr ? std::nullopt : std::optional<std::string>(value);
      unsetenv(name);
    }
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    scratch_ = fs::path(SORTIE_TEST_BINARY_DIR) / "scratch" / info->name();
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

  // Writes `text` to scratch/<relative> and returns the absolute path.
  std::string write(const std::string& relative, const std::string& text) {
    const fs::path path = scratch_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  std::string dir(const std::string& relative) const { return (scratch_ / relative).string(); }

  // Searches only the given directories (as --plugin-dir does).
  Registry discover_in(const std::vector<std::string>& dirs) {
    SearchOptions options;
    options.replace_dirs = dirs;
    return Registry::discover(options);
  }

  fs::path scratch_;

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// A manifest with one plugin-backed scheduler `name`.
std::string scheduler_manifest(const std::string& name, const std::string& library = "libx.so") {
  return R"({"file_format_version": "1.0",
  "plugin": {"name": "p", "version": "1.0", "library": ")" +
         library + R"(", "abi": {"min": "1.0", "max": "1.2"}},
  "provides": [{"group": "sortie.schedulers", "name": ")" +
         name + R"("}]})";
}

std::vector<std::string> paths_of(const std::vector<SearchDir>& dirs) {
  std::vector<std::string> paths;
  for (const SearchDir& dir : dirs) paths.push_back(dir.path + " <" + dir.source + ">");
  return paths;
}

// REG-16: a typo in a named resource or a value of the wrong type skips that entry alone, named
// with the closest member and its line; the manifest's other entries stay.
TEST_F(RegistryTest, ANamedResourceWithAnUnknownMemberOrBadValueIsSkippedAlone) {
  const std::string path = write("acme.json", R"({"file_format_version": "1.0", "provides": [
    {"group": "sortie.named_resources", "name": "acme.typo", "resource": {"cpu": 2, "memMb": 1024}},
    {"group": "sortie.named_resources", "name": "acme.bad", "resource": {"cpu": "two"}},
    {"group": "sortie.named_resources", "name": "acme.good", "resource": {"cpu": 4, "memMB": 16}},
    {"group": "sortie.named_resources", "name": "acme.later", "added_in_1_1": 1, "resource": {}},
    {"group": "sortie.named_resources", "name": "acme.misspelt", "descripton": "x", "resource": {}}]})");
  const Registry registry = Registry::from_files({path});
  std::vector<std::string> names;
  for (const Entry* entry : registry.entries(Group::kNamedResources)) names.push_back(entry->name);
  // A member of a later version is ignored (REG-10); one close to a known member is a typo.
  EXPECT_EQ(names, (std::vector<std::string>{"acme.good", "acme.later"}));
  ASSERT_EQ(registry.problems().size(), 3u);
  EXPECT_EQ(registry.problems()[0].message,
            "provides[0].resource.memMb: unknown member (did you mean 'memMB'?) at line 2, column "
            "85; a resource has cpu, gpu, memMB, capabilities and devices");
  EXPECT_EQ(registry.problems()[1].message,
            "provides[1].resource: cpu: expected a number, got \"two\"");
  EXPECT_EQ(registry.problems()[2].message,
            "provides[4].descripton: unknown member (did you mean 'description'?) at line 6, "
            "column 66");
}

TEST_F(RegistryTest, GroupNamesRoundTrip) {
  for (Group group : {Group::kSchedulers, Group::kPackagers, Group::kImageProviders,
                      Group::kNamedResources, Group::kComponents}) {
    EXPECT_EQ(group_from_string(to_string(group)), group);
  }
  EXPECT_STREQ(to_string(Group::kImageProviders), "sortie.image_providers");
  EXPECT_EQ(group_from_string("sortie.trackers"), std::nullopt);
}

TEST_F(RegistryTest, SearchDirsDefaultToXdgAndInstallPrefix) {
  setenv("HOME", "/home/u", 1);
  SearchOptions options;
  options.executable_path = "/opt/sortie/bin/sortie";
  EXPECT_EQ(paths_of(search_dirs(options)),
            (std::vector<std::string>{
                "/home/u/.config/sortie/plugins.d <XDG_CONFIG_HOME>",
                "/etc/xdg/sortie/plugins.d <XDG_CONFIG_DIRS>",
                "/home/u/.local/share/sortie/plugins.d <XDG_DATA_HOME>",
                "/usr/local/share/sortie/plugins.d <XDG_DATA_DIRS>",
                "/usr/share/sortie/plugins.d <XDG_DATA_DIRS>",
                "/opt/sortie/share/sortie/plugins.d <install prefix>",
            }));
}

TEST_F(RegistryTest, ADirectoryTwoRowsReachIsSearchedOnceAtItsFirstRow) {
  setenv("HOME", "/home/u", 1);
  SearchOptions options;
  options.executable_path = "/usr/bin/sortie";
  const std::vector<std::string> paths = paths_of(search_dirs(options));
  EXPECT_EQ(std::count(paths.begin(), paths.end(), "/usr/share/sortie/plugins.d <XDG_DATA_DIRS>"),
            1);
  EXPECT_EQ(paths.back(), "/usr/share/sortie/plugins.d <XDG_DATA_DIRS>");
}

TEST_F(RegistryTest, SearchDirsFollowXdgVariablesAndIgnoreRelativeEntries) {
  setenv("HOME", "/home/u", 1);
  setenv("XDG_CONFIG_HOME", "/cfg", 1);
  setenv("XDG_CONFIG_DIRS", "/c1:relative/dir::/c2", 1);
  setenv("XDG_DATA_HOME", "not/absolute", 1);  // falls back to $HOME/.local/share
  setenv("XDG_DATA_DIRS", "/d1", 1);
  SearchOptions options;
  options.executable_path = "/opt/sortie/bin/sortie";
  EXPECT_EQ(paths_of(search_dirs(options)),
            (std::vector<std::string>{
                "/cfg/sortie/plugins.d <XDG_CONFIG_HOME>",
                "/c1/sortie/plugins.d <XDG_CONFIG_DIRS>",
                "/c2/sortie/plugins.d <XDG_CONFIG_DIRS>",
                "/home/u/.local/share/sortie/plugins.d <XDG_DATA_HOME>",
                "/d1/sortie/plugins.d <XDG_DATA_DIRS>",
                "/opt/sortie/share/sortie/plugins.d <install prefix>",
            }));
}

TEST_F(RegistryTest, SearchDirsWithoutHomeSkipTheUserDirectories) {
  SearchOptions options;
  options.executable_path = "/opt/sortie/bin/sortie";
  const std::vector<SearchDir> dirs = search_dirs(options);
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[0].source, "XDG_CONFIG_DIRS");
  EXPECT_EQ(dirs[1].source, "XDG_DATA_DIRS");
}

TEST_F(RegistryTest, PluginPathIsPrependedToTheDefaults) {
  setenv("HOME", "/home/u", 1);
  setenv("SORTIE_PLUGIN_PATH", "/a::/b", 1);
  SearchOptions options;
  options.executable_path = "/opt/sortie/bin/sortie";
  const std::vector<std::string> paths = paths_of(search_dirs(options));
  ASSERT_EQ(paths.size(), 8u);
  EXPECT_EQ(paths[0], "/a <SORTIE_PLUGIN_PATH>");
  EXPECT_EQ(paths[1], "/b <SORTIE_PLUGIN_PATH>");
  EXPECT_EQ(paths[2], "/home/u/.config/sortie/plugins.d <XDG_CONFIG_HOME>");
  EXPECT_EQ(paths[7], "/opt/sortie/share/sortie/plugins.d <install prefix>");
}

TEST_F(RegistryTest, PluginDirsReplaceEverythingElse) {
  setenv("HOME", "/home/u", 1);
  setenv("SORTIE_PLUGIN_PATH", "/a", 1);
  setenv("SORTIE_PLUGIN_DIRS", "/x:/y", 1);
  EXPECT_EQ(paths_of(search_dirs(SearchOptions{})),
            (std::vector<std::string>{"/x <SORTIE_PLUGIN_DIRS>", "/y <SORTIE_PLUGIN_DIRS>"}));
}

TEST_F(RegistryTest, ReplaceOptionWinsOverPluginDirs) {
  setenv("SORTIE_PLUGIN_DIRS", "/x", 1);
  SearchOptions options;
  options.replace_dirs = {"/o/./p"};
  EXPECT_EQ(paths_of(search_dirs(options)), (std::vector<std::string>{"/o/p <--plugin-dir>"}));
}

TEST_F(RegistryTest, InstallPrefixDefaultsToTheRunningExecutable) {
  setenv("SORTIE_PLUGIN_PATH", "/a", 1);
  const std::vector<SearchDir> dirs = search_dirs(SearchOptions{});
  const fs::path self = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(dirs.back().source, "install prefix");
  EXPECT_EQ(dirs.back().path,
            (self.parent_path().parent_path() / "share/sortie/plugins.d").lexically_normal());
}

TEST_F(RegistryTest, InstallPrefixClimbsTheInstalledBinaryAndLibraryDirectories) {
  EXPECT_EQ(install_prefix_of("/opt/s/bin/sortie"), fs::path("/opt/s"));
  EXPECT_EQ(install_prefix_of(fs::path("/opt/s") / SORTIE_INSTALL_LIBDIR / "libsortie_launch.so"),
            fs::path("/opt/s"));
  EXPECT_EQ(install_prefix_of("/opt/s/lib/x86_64-linux-gnu/libsortie_launch.so"),
            fs::path(std::string(SORTIE_INSTALL_LIBDIR) == "lib/x86_64-linux-gnu" ? "/opt/s"
                                                                                  : "/opt/s/lib"));
  EXPECT_EQ(install_prefix_of("/opt/s/libexec/helper"), fs::path("/opt/s"));
}

TEST_F(RegistryTest, DiscoverReadsJsonFilesInByteOrderAndReportsShadowed) {
  const std::string upper = write("one/Z.json", scheduler_manifest("s"));
  const std::string lower = write("one/a.json", scheduler_manifest("s"));
  write("one/notes.txt", "not a manifest");
  const std::string later = write("two/a.json", scheduler_manifest("s"));
  const Registry registry = discover_in({dir("one"), dir("two")});
  EXPECT_TRUE(registry.problems().empty());
  const Entry* entry = registry.find(Group::kSchedulers, "s");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->manifest_path, upper);  // 'Z' (0x5A) sorts before 'a' (0x61)
  ASSERT_EQ(registry.shadowed().size(), 2u);
  EXPECT_EQ(registry.shadowed()[0].hidden.manifest_path, lower);
  EXPECT_EQ(registry.shadowed()[0].winner_manifest, upper);
  EXPECT_EQ(registry.shadowed()[1].hidden.manifest_path, later);
  EXPECT_EQ(registry.dirs().size(), 2u);
}

TEST_F(RegistryTest, DiscoverSearchesPluginPathBeforeTheDefaults) {
  setenv("HOME", dir("home").c_str(), 1);
  setenv("XDG_CONFIG_DIRS", dir("etc").c_str(), 1);
  setenv("XDG_DATA_DIRS", dir("share").c_str(), 1);
  setenv("SORTIE_PLUGIN_PATH", dir("extra").c_str(), 1);
  write("home/.config/sortie/plugins.d/m.json", scheduler_manifest("user"));
  write("share/sortie/plugins.d/m.json", scheduler_manifest("user"));
  const std::string extra = write("extra/m.json", scheduler_manifest("user"));
  SearchOptions options;
  options.executable_path = dir("prefix/bin/sortie");
  const Registry registry = Registry::discover(options);
  EXPECT_TRUE(registry.problems().empty());
  ASSERT_NE(registry.find(Group::kSchedulers, "user"), nullptr);
  EXPECT_EQ(registry.find(Group::kSchedulers, "user")->manifest_path, extra);
  EXPECT_EQ(registry.shadowed().size(), 2u);
}

TEST_F(RegistryTest, OnlyNamedDirectoriesThatAreMissingAreProblems) {
  setenv("HOME", dir("home").c_str(), 1);
  setenv("SORTIE_PLUGIN_PATH", dir("missing").c_str(), 1);
  setenv("XDG_CONFIG_DIRS", dir("etc").c_str(), 1);
  setenv("XDG_DATA_DIRS", dir("share").c_str(), 1);
  SearchOptions options;
  options.executable_path = dir("prefix/bin/sortie");
  const Registry registry = Registry::discover(options);
  ASSERT_EQ(registry.problems().size(), 1u);
  EXPECT_EQ(registry.problems()[0].manifest_path, dir("missing"));
  EXPECT_NE(registry.problems()[0].message.find("is not a directory (named by SORTIE_PLUGIN_PATH)"),
            std::string::npos);
}

struct BadManifest {
  const char* label;
  const char* text;
  const char* message;  // expected to occur in the problem's message
};

TEST_F(RegistryTest, MalformedManifestsBecomeProblemsNamingTheField) {
  const BadManifest cases[] = {
      {"syntax", "{\n  \"file_format_version\": \"1.0\",\n  oops\n}",
       "invalid JSON at line 3, column 3: Missing a name for object member."},
      {"not_object", "[]", "$: expected a JSON object, found an array"},
      {"no_version", R"({"provides": []})",
       "file_format_version: missing; this member is required"},
      {"version_type", R"({"file_format_version": 1, "provides": []})",
       "file_format_version: expected a string, found a number"},
      {"version_text", R"({"file_format_version": "one", "provides": []})",
       "file_format_version: 'one' is not a version of the form MAJOR.MINOR[.PATCH]"},
      {"version_major", R"({"file_format_version": "2.0", "provides": []})",
       "file_format_version: version '2.0' is not supported; this sortie reads 1.x manifests"},
      {"plugin_type", R"({"file_format_version": "1.0", "plugin": [], "provides": []})",
       "plugin: expected an object, found an array"},
      {"plugin_name",
       R"({"file_format_version": "1.0", "provides": [], "plugin": {"name": "a b", )"
       R"("version": "1", "library": "x.so", "abi": {"min": "1.0", "max": "1.0"}}})",
       "plugin.name: 'a b' is not a valid name; use one or more of A-Z a-z 0-9 _ . -"},
      {"plugin_library",
       R"({"file_format_version": "1.0", "provides": [], "plugin": {"name": "a", )"
       R"("version": "1", "abi": {"min": "1.0", "max": "1.0"}}})",
       "plugin.library: missing; this member is required"},
      {"plugin_abi",
       R"({"file_format_version": "1.0", "provides": [], "plugin": {"name": "a", )"
       R"("version": "1", "library": "x.so"}})",
       "plugin.abi: missing"},
      {"abi_min",
       R"({"file_format_version": "1.0", "provides": [], "plugin": {"name": "a", )"
       R"("version": "1", "library": "x.so", "abi": {"min": "1", "max": "1.0"}}})",
       "plugin.abi.min: '1' is not an ABI version of the form MAJOR.MINOR"},
      {"abi_order",
       R"({"file_format_version": "1.0", "provides": [], "plugin": {"name": "a", )"
       R"("version": "1", "library": "x.so", "abi": {"min": "1.2", "max": "1.0"}}})",
       "plugin.abi: min is greater than max"},
      {"no_provides", R"({"file_format_version": "1.0"})", "provides: missing"},
      {"provides_type", R"({"file_format_version": "1.0", "provides": {}})",
       "provides: expected an array, found an object"},
  };
  std::vector<std::string> paths;
  for (const BadManifest& bad : cases)
    paths.push_back(write(std::string(bad.label) + ".json", bad.text));
  paths.push_back(dir("absent.json"));
  const Registry registry = Registry::from_files(paths);
  ASSERT_EQ(registry.problems().size(), std::size(cases) + 1);
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE(cases[i].label);
    EXPECT_EQ(registry.problems()[i].manifest_path, paths[i]);
    EXPECT_NE(registry.problems()[i].message.find(cases[i].message), std::string::npos)
        << registry.problems()[i].message;
  }
  EXPECT_EQ(registry.problems().back().message, "cannot read the file: No such file or directory");
  EXPECT_TRUE(registry.entries(Group::kSchedulers).empty());
}

// docs/limits.md L-1 and L-6: a manifest nested or sized past the limit is one problem, and the
// manifests beside it still count (F2 of issue 16: one crashed every command).
TEST_F(RegistryTest, ManifestsPastTheLimitsAreProblemsAndTheOthersStay) {
  const std::string deep = write("deep.json", sortie::testing::nested_json_arrays(100000));
  const std::string padded = scheduler_manifest("big") + std::string(1 << 20, ' ');
  const std::string big = write("big.json", padded);
  write("at_limit.json", padded.substr(0, 1 << 20));  // a JSON object up to its last byte
  const std::string good = write("good.json", scheduler_manifest("good"));
  const Registry registry = discover_in({dir("")});
  ASSERT_EQ(registry.problems().size(), 2u);
  EXPECT_EQ(registry.problems()[0].manifest_path, big);
  EXPECT_EQ(registry.problems()[0].message,
            "the file's size (" + std::to_string(padded.size()) +
                " bytes) exceeds the limit of 1048576 bytes (docs/limits.md L-6); raise it with "
                "SORTIE_LIMIT_MANIFEST_BYTES=<n>");
  EXPECT_EQ(registry.problems()[1].manifest_path, deep);
  EXPECT_EQ(registry.problems()[1].message,
            "its JSON nesting exceeds the limit of 128 levels of nesting (docs/limits.md L-1); "
            "raise it with SORTIE_LIMIT_JSON_DEPTH=<n>");
  EXPECT_NE(registry.find(Group::kSchedulers, "good"), nullptr);
  EXPECT_NE(registry.find(Group::kSchedulers, "big"), nullptr);  // at_limit.json, read whole
  EXPECT_EQ(registry.find(Group::kSchedulers, "good")->manifest_path, good);
}

// REG-15's messages for a path every user may write and for one owned by uid 65534.
std::string writable_by_all(const std::string& path) {
  return "not read: " + path + " is writable by every user (chmod o-w " + path + " to use it)";
}
std::string owned_by_nobody(const std::string& path) {
  return "not read: " + path +
         " is owned by another user (uid 65534); only your own or root's plugins are loaded";
}

// `registry` skipped scheduler `name`, with `message` its one problem.
void expect_skipped(const Registry& registry, const std::string& name, const std::string& message) {
  EXPECT_EQ(registry.find(Group::kSchedulers, name), nullptr);
  ASSERT_EQ(registry.problems().size(), 1u);
  EXPECT_EQ(registry.problems()[0].message, message);
}

// REG-15 (issue 16 finding 8): a library another user could replace is never loaded, nor is
// one owned by another user than us or root; the manifest's other problems do not matter then.
TEST_F(RegistryTest, ALibraryOthersCanReplaceOrOwnIsNotRead) {
  const std::string library = write("plugins/libopen.so", "");
  write("one/open.json", scheduler_manifest("open", library));
  fs::permissions(library, fs::perms::others_write, fs::perm_options::add);
  expect_skipped(discover_in({dir("one")}), "open", writable_by_all(library));

  if (::geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root (CI is root)";
  const std::string foreign = write("plugins/libforeign.so", "");
  write("two/foreign.json", scheduler_manifest("foreign", foreign));
  ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
  expect_skipped(discover_in({dir("two")}), "foreign", owned_by_nobody(foreign));
}

// REG-15 (issue 26 A8): what another user could replace anywhere up the path is not read
// either: a manifest reached through a symbolic link into a directory every user may write, as
// the same file placed there directly is not, and a plugin directory under such a directory.
TEST_F(RegistryTest, AManifestOthersCanReplaceUpItsPathOrThroughALinkIsNotRead) {
  const std::string open_dir = dir("open");
  const std::string target = write("open/linked.json", scheduler_manifest("linked"));
  fs::permissions(open_dir, fs::perms::all);
  fs::create_directories(dir("one"));
  fs::create_symlink(target, dir("one/linked.json"));
  const Registry linked = discover_in({dir("one")});
  expect_skipped(linked, "linked", writable_by_all(open_dir));
  EXPECT_EQ(linked.problems().at(0).manifest_path, dir("one/linked.json"));

  write("open/plugins/nested.json", scheduler_manifest("nested"));
  const Registry nested = discover_in({dir("open/plugins")});
  expect_skipped(nested, "nested", writable_by_all(open_dir));
  EXPECT_EQ(nested.problems().at(0).manifest_path, dir("open/plugins"));

  // The sticky bit (as /tmp has) keeps others from replacing what they do not own: trusted.
  fs::permissions(open_dir, fs::perms::sticky_bit, fs::perm_options::add);
  EXPECT_NE(discover_in({dir("one")}).find(Group::kSchedulers, "linked"), nullptr);
  EXPECT_NE(discover_in({dir("open/plugins")}).find(Group::kSchedulers, "nested"), nullptr);
}

// A library named through a link whose target lies under another user's directory is not read,
// and neither is a link another user owns (they could point it elsewhere after the check).
TEST_F(RegistryTest, ALibraryThroughALinkOthersOwnIsNotRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root (CI is root)";
  write("foreign/sub/libx.so", "");
  ASSERT_EQ(::chown(dir("foreign").c_str(), 65534, 65534), 0);
  fs::create_directories(dir("mine"));
  fs::create_symlink(dir("foreign/sub"), dir("mine/lib"));
  write("one/m.json", scheduler_manifest("through", "../mine/lib/libx.so"));
  expect_skipped(discover_in({dir("one")}), "through", owned_by_nobody(dir("foreign")));

  write("plugins/liby.so", "");
  fs::create_symlink(dir("plugins/liby.so"), dir("mine/liby.so"));
  ASSERT_EQ(::lchown(dir("mine/liby.so").c_str(), 65534, 65534), 0);
  write("two/m.json", scheduler_manifest("link", "../mine/liby.so"));
  expect_skipped(discover_in({dir("two")}), "link", owned_by_nobody(dir("mine/liby.so")));
}

TEST_F(RegistryTest, BadEntriesAreSkippedAndTheRestOfTheManifestStays) {
  const std::string path = write("m.json", R"({"file_format_version": "1.0", "provides": [
    {"group": "sortie.bogus", "name": "a"},
    {"group": "sortie.schedulers", "name": "needs_library"},
    {"group": "sortie.named_resources", "name": "bad name"},
    {"group": "sortie.named_resources", "name": "r", "resource": 3},
    {"group": "sortie.named_resources", "name": "code_backed"},
    {"group": "sortie.components", "name": "c"},
    "text",
    {"group": "sortie.named_resources", "name": "ok", "resource": {"cpu": 1}},
    {"group": "sortie.named_resources", "name": "ok", "resource": {"cpu": 2}}]})");
  const Registry registry = Registry::from_files({path});
  std::vector<std::string> messages;
  for (const Problem& problem : registry.problems()) messages.push_back(problem.message);
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "provides[0].group: unknown group 'sortie.bogus'; expected sortie.schedulers, "
                "sortie.packagers, sortie.image_providers, sortie.named_resources, "
                "sortie.components or sortie.executors",
                "provides[1]: sortie.schedulers entry 'needs_library' is implemented by a "
                "library, but the manifest has no \"plugin\" member",
                "provides[2].name: 'bad name' is not a valid name; use one or more of A-Z a-z "
                "0-9 _ . -",
                "provides[3].resource: expected an object, found a number",
                "provides[4]: sortie.named_resources entry 'code_backed' has no \"resource\" "
                "object, so it needs a library, but the manifest has no \"plugin\" member",
                "provides[5].component: missing; a sortie.components entry is data only",
                "provides[6]: expected an object, found a string",
                "provides[8]: sortie.named_resources 'ok' is listed twice in this manifest; "
                "remove one",
            }));
  const Entry* ok = registry.find(Group::kNamedResources, "ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->data_json, R"({"cpu":1})");
}

TEST_F(RegistryTest, DataEntriesKeepTheirJsonAndNeedNoPlugin) {
  const std::string path = write("data.json", R"({
    "file_format_version": "1.0.3", "future_member": {"ignored": true},
    "provides": [
      {"group": "sortie.named_resources", "name": "gpu.small", "description": "one GPU",
       "resource": {"cpu": 8, "gpu": 1, "memMB": 62464, "capabilities": {}}},
      {"group": "sortie.components", "name": "utils.echo",
       "component": {"params": [{"name": "msg"}], "app": {"name": "echo"}}}]})");
  const Registry registry = Registry::from_files({path});
  EXPECT_TRUE(registry.problems().empty());
  const Entry* resource = registry.find(Group::kNamedResources, "gpu.small");
  ASSERT_NE(resource, nullptr);
  EXPECT_EQ(resource->plugin, nullptr);
  EXPECT_EQ(resource->description, "one GPU");
  EXPECT_EQ(resource->data_json, R"({"cpu":8,"gpu":1,"memMB":62464,"capabilities":{}})");
  const Entry* component = registry.find(Group::kComponents, "utils.echo");
  ASSERT_NE(component, nullptr);
  EXPECT_EQ(component->data_json, R"({"params":[{"name":"msg"}],"app":{"name":"echo"}})");
}

TEST_F(RegistryTest, ExecutorEntriesNameTheirSchedulerAndNeedNoPlugin) {
  const std::string path = write("executors.json", R"({
    "file_format_version": "1.0",
    "provides": [
      {"group": "sortie.executors", "name": "local.image",
       "executor": {"scheduler": "local_docker", "options": {"network": "x"}}},
      {"group": "sortie.executors", "name": "slurm.process", "executor": {"options": {}}},
      {"group": "sortie.executors", "name": "k8s.image", "executor": "kubernetes"}]})");
  const Registry registry = Registry::from_files({path});
  const Entry* local = registry.find(Group::kExecutors, "local.image");
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->plugin, nullptr);
  EXPECT_EQ(local->data_json, R"({"scheduler":"local_docker","options":{"network":"x"}})");
  EXPECT_EQ(registry.find(Group::kExecutors, "slurm.process"), nullptr);
  EXPECT_EQ(registry.find(Group::kExecutors, "k8s.image"), nullptr);
  std::vector<std::string> messages;
  for (const Problem& problem : registry.problems()) messages.push_back(problem.message);
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "provides[1].executor.scheduler: missing; name the scheduler that runs it",
                "provides[2].executor: expected an object, found a string"}));
}

TEST_F(RegistryTest, PluginEntriesShareTheirLibraryWithAbsolutePaths) {
  const std::string path = write("share/sortie/plugins.d/acme.json", R"({
    "file_format_version": "1.0",
    "plugin": {"name": "acme", "version": "0.3.1", "description": "ACME batch",
               "library": "../../../lib/./sortie/plugins/libacme.so",
               "abi": {"min": "1.0", "max": "1.2"}},
    "provides": [
      {"group": "sortie.schedulers", "name": "acme_batch", "description": "runs on ACME"},
      {"group": "sortie.named_resources", "name": "acme_sizes"},
      {"group": "sortie.named_resources", "name": "acme.gpu", "resource": {"gpu": 1}}]})");
  const fs::path relative = fs::relative(path);
  const Registry registry = Registry::from_files({relative.string()});
  EXPECT_TRUE(registry.problems().empty());
  const Entry* scheduler = registry.find(Group::kSchedulers, "acme_batch");
  ASSERT_NE(scheduler, nullptr);
  EXPECT_EQ(scheduler->manifest_path, path);
  EXPECT_EQ(scheduler->description, "runs on ACME");
  ASSERT_NE(scheduler->plugin, nullptr);
  EXPECT_EQ(scheduler->plugin->name, "acme");
  EXPECT_EQ(scheduler->plugin->version, "0.3.1");
  EXPECT_EQ(scheduler->plugin->description, "ACME batch");
  EXPECT_EQ(scheduler->plugin->library_path, dir("lib/sortie/plugins/libacme.so"));
  EXPECT_EQ(scheduler->plugin->manifest_path, path);
  EXPECT_EQ(scheduler->plugin->abi_min, SORTIE_ABI_VERSION(1, 0));
  EXPECT_EQ(scheduler->plugin->abi_max, SORTIE_ABI_VERSION(1, 2));
  const Entry* sizes = registry.find(Group::kNamedResources, "acme_sizes");
  ASSERT_NE(sizes, nullptr);
  EXPECT_EQ(sizes->plugin, scheduler->plugin);                                    // code-backed
  EXPECT_EQ(registry.find(Group::kNamedResources, "acme.gpu")->plugin, nullptr);  // data
}

TEST_F(RegistryTest, EntriesAreSortedAndCloseNamesHelpWithTypos) {
  const std::string path = write("m.json", R"({"file_format_version": "1.0",
    "plugin": {"name": "p", "version": "1", "library": "x.so", "abi": {"min": "1.0", "max": "1.0"}},
    "provides": [
      {"group": "sortie.schedulers", "name": "slurm"},
      {"group": "sortie.schedulers", "name": "local_docker"},
      {"group": "sortie.schedulers", "name": "kubernetes"},
      {"group": "sortie.schedulers", "name": "local_cwd"},
      {"group": "sortie.image_providers", "name": "slurp"},
      {"group": "sortie.named_resources", "name": "cpu.small"},
      {"group": "sortie.named_resources", "name": "gpu.small"}]})");
  const Registry registry = Registry::from_files({path});
  std::vector<std::string> names;
  for (const Entry* entry : registry.entries(Group::kSchedulers)) names.push_back(entry->name);
  EXPECT_EQ(names, (std::vector<std::string>{"kubernetes", "local_cwd", "local_docker", "slurm"}));
  EXPECT_EQ(registry.close_names(Group::kSchedulers, "local"),
            (std::vector<std::string>{"local_cwd", "local_docker"}));
  EXPECT_EQ(registry.close_names(Group::kSchedulers, "slurn"), (std::vector<std::string>{"slurm"}));
  EXPECT_EQ(registry.close_names(Group::kSchedulers, "kubernets"),
            (std::vector<std::string>{"kubernetes"}));
  EXPECT_TRUE(registry.close_names(Group::kSchedulers, "aws_batch").empty());
  // Closest first, as every "did you mean" of sortie/registry/suggest.hpp: `sortie resources
  // gpu.smal` suggested cpu.small (the first by name) before gpu.small.
  EXPECT_EQ(registry.close_names(Group::kNamedResources, "gpu.smal"),
            (std::vector<std::string>{"gpu.small", "cpu.small"}));
  EXPECT_EQ(registry.find(Group::kSchedulers, "slurp"), nullptr);
}

// The library's load-time constructor calls abort(): the test process survives only because
// neither discovery nor lookup ever opens it (REG-4).
TEST_F(RegistryTest, DiscoverNeverLoadsALibrary) {
  write("plugins.d/abort.json", scheduler_manifest("aborting", SORTIE_FIXTURE_ABORT_LIBRARY));
  const Registry registry = discover_in({dir("plugins.d")});
  EXPECT_TRUE(registry.problems().empty());
  const Entry* entry = registry.find(Group::kSchedulers, "aborting");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->plugin->library_path, SORTIE_FIXTURE_ABORT_LIBRARY);
}

}  // namespace
}  // namespace sortie::registry
