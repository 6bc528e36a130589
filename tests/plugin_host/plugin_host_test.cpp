// Tests for sortie/plugin_host/plugin_host.hpp against real plugin libraries (tests/plugin_host/
// fixtures): one good plugin, and one variant per rule a plugin can break.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <sortie/model/error.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <string>
#include <vector>

namespace sortie::plugin_host {
namespace {

namespace fs = std::filesystem;
using registry::Entry;
using registry::Group;
using registry::Registry;

constexpr const char* kConfig =
    R"({"schema":"sortie.scheduler_config/1","scheduler":"fixture_sched","session":"t"})";

Registry fixture(const std::string& name) {
  return Registry::from_files({std::string(SORTIE_FIXTURE_MANIFEST_DIR) + "/" + name + ".json"});
}

const Entry& only_entry(const Registry& registry, Group group, const std::string& name) {
  const Entry* entry = registry.find(group, name);
  if (entry == nullptr) throw std::runtime_error("fixture manifest lacks " + name);
  return *entry;
}

// Runs `call`, which must throw Error with `status` and a message containing every part.
void expect_error(const std::function<void()>& call, sortie_status status,
                  std::initializer_list<std::string> parts) {
  try {
    call();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), status) << model::status_name(error.status()) << " instead of "
                                      << model::status_name(status) << ": " << error.what();
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << "missing: " << part << "\nin: " << error.what();
    }
  }
}

// The good plugin answers whatever happened to the others before.
void expect_good_plugin_works(PluginHost& host) {
  const Registry registry = fixture("fixture_good");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  EXPECT_NE(scheduler->dryrun(R"({"schema":"sortie.dryrun_input/1"})").find("\"fixture-1\""),
            std::string::npos);
}

// Loading the fixture's library fails with `status` and every part; the good plugin still works.
void expect_load_error(const std::string& name, sortie_status status,
                       std::initializer_list<std::string> parts) {
  SCOPED_TRACE(name);
  PluginHost host;
  const Registry registry = fixture(name);
  const Entry& entry = *registry.entries(Group::kSchedulers).at(0);
  const std::string library =
      fs::path(SORTIE_FIXTURE_MANIFEST_DIR).parent_path() / "lib" / ("lib" + name + ".so");
  const std::string context =
      "plugin '" + name + "' (" + library + ", manifest " + entry.manifest_path + "): ";
  const auto load = [&] { host.load(*entry.plugin); };
  expect_error(load, status, {context});
  expect_error(load, status, parts);  // the second use reports the cached error
  expect_good_plugin_works(host);
}

class PluginHostFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    scratch_ = fs::path(SORTIE_TEST_BINARY_DIR) / "scratch" / info->name();
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }
  // A manifest for one scheduler "s" of `library` declaring ABI [abi_min, abi_max].
  std::string write_manifest(const std::string& library, const char* abi_min = "1.0",
                             const char* abi_max = "1.0") {
    const std::string path = (scratch_ / "m.json").string();
    std::ofstream(path) << R"({"file_format_version": "1.0", "plugin": {"name": "scratch",
      "version": "1", "library": ")"
                        << library << R"(", "abi": {"min": ")" << abi_min << R"(", "max": ")"
                        << abi_max << R"("}},
      "provides": [{"group": "sortie.schedulers", "name": "s"}]})";
    return path;
  }
  fs::path scratch_;
};

// docs/limits.md L-1, L-8, L-9: answers nested or sized past the limits are the plugin's bug,
// refused without a crash and without keeping them whole.
TEST(PluginHostTest, AnswersPastTheLimitsAreRefused) {
  PluginHost host;
  const Registry registry = fixture("fixture_unbounded");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->dryrun("{}"); }, SORTIE_INTERNAL,
               {"dryrun returned an invalid payload: its JSON nesting exceeds the limit of 128 "
                "levels of nesting (docs/limits.md L-1); raise it with SORTIE_LIMIT_JSON_DEPTH"});
  expect_error([&] { scheduler->schedule("{}"); }, SORTIE_INTERNAL,
               {"the app id schedule wrote exceeds the limit of 1024 bytes (docs/limits.md L-8)"});
  expect_error([&] { scheduler->describe("a"); }, SORTIE_INTERNAL,
               {"describe returned an invalid payload: its size exceeds the limit of 4194304 "
                "bytes (docs/limits.md L-9); raise it with SORTIE_LIMIT_STATUS_ANSWER_BYTES"});
  expect_good_plugin_works(host);
}

TEST(PluginHostTest, GoodPluginNegotiatesOnce) {
  PluginHost host;
  const Registry registry = fixture("fixture_good");
  const Entry& entry = only_entry(registry, Group::kSchedulers, "fixture_sched");
  const LoadedPlugin& plugin = host.load(*entry.plugin);
  EXPECT_EQ(plugin.name, "fixture_good");
  EXPECT_EQ(plugin.version, "1.2.3");
  EXPECT_EQ(plugin.abi_version, SORTIE_ABI_CURRENT);
  EXPECT_EQ(plugin.library_path, entry.plugin->library_path);
  EXPECT_EQ(plugin.manifest_path, entry.manifest_path);
  ASSERT_EQ(plugin.components.size(), 3u);
  EXPECT_STREQ(plugin.components[0]->name, "fixture_sched");
  EXPECT_EQ(plugin.components[1]->kind, static_cast<uint32_t>(SORTIE_KIND_IMAGE_PROVIDER));
  PluginHost other_host;
  EXPECT_EQ(&other_host.load(*entry.plugin), &plugin);  // once per process
}

TEST(PluginHostTest, GoodSchedulerAnswersEveryCall) {
  PluginHost host;
  const Registry registry = fixture("fixture_good");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  EXPECT_EQ(scheduler->context().rfind("scheduler 'fixture_sched' (plugin fixture_good, /", 0), 0u);
  EXPECT_EQ(scheduler->run_options(), R"({"schema":"sortie.runopts/1","options":[]})");
  const std::string input = R"({"schema":"sortie.dryrun_input/1"})";
  const std::string request = scheduler->dryrun(input);
  EXPECT_EQ(request,
            R"({"schema":"sortie.dryrun/1","app_id":"fixture-1","request":{"input_bytes":)" +
                std::to_string(input.size()) + "}}");
  EXPECT_EQ(scheduler->describe("fixture-1"), std::nullopt);  // NOT_FOUND before schedule
  EXPECT_EQ(scheduler->schedule(request), "fixture-1");
  ASSERT_TRUE(scheduler->describe("fixture-1").has_value());
  EXPECT_NE(scheduler->describe("fixture-1")->find("\"SUCCEEDED\""), std::string::npos);
  EXPECT_NE(scheduler->list("{}").find("\"app_id\":\"fixture-1\""), std::string::npos);
  scheduler->cancel("fixture-1");
  ASSERT_TRUE(scheduler->can_wait());
  EXPECT_NE(scheduler->wait("fixture-1", "RUNNING", 1000).find("sortie.status/1"),
            std::string::npos);
  expect_error(
      [&] { scheduler->cancel("nope"); }, SORTIE_NOT_FOUND,
      {"scheduler 'fixture_sched' (plugin fixture_good, ", "): cancel failed: no app nope"});
  expect_error([&] { scheduler->schedule("{}"); }, SORTIE_INVALID_ARGUMENT,
               {"schedule failed: not a sortie.dryrun/1 request"});
}

TEST(PluginHostTest, GoodSchedulerStreamsLogs) {
  PluginHost host;
  const Registry registry = fixture("fixture_good");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->log_open("fixture-1", "{}"); }, SORTIE_NOT_FOUND,
               {"log_open failed: no app fixture-1"});
  scheduler->schedule(R"({"schema":"sortie.dryrun/1"})");
  auto reader = scheduler->log_open("fixture-1", R"({"schema":"sortie.log_request/1"})");
  std::vector<std::string> lines;
  const auto collect = [&](const LogLineView& line) {
    lines.push_back(std::string(line.role) + "/" + std::to_string(line.replica_id) + "@" +
                    std::to_string(line.timestamp_ns % 10) + ":" + std::string(line.data));
  };
  while (reader->next(100, collect)) {
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"main/0@0:hello\n", "main/0@1:world\n"}));

  // An exception from the host's own callback is carried over the plugin, then rethrown.
  auto throwing_reader = scheduler->log_open("fixture-1", "{}");
  EXPECT_THROW(throwing_reader->next(100, [](const LogLineView&) { throw std::logic_error("x"); }),
               std::logic_error);
}

TEST(PluginHostTest, GoodImageProviderAndNamedResources) {
  PluginHost host;
  const Registry registry = fixture("fixture_good");
  auto images = host.image_provider(only_entry(registry, Group::kImageProviders, "fixture_images"),
                                    R"({"schema":"sortie.image_provider_config/1"})");
  EXPECT_EQ(images->fetch(R"({"schema":"sortie.role/1"})"),
            R"({"schema":"sortie.image/1","img_root":"/srv/images/fixture","cwd":"/srv"})");
  const Entry& sizes = only_entry(registry, Group::kNamedResources, "fixture_sizes");
  EXPECT_EQ(host.resource_names(sizes),
            (std::vector<std::string>{"fixture.small", "fixture.large"}));
  EXPECT_EQ(host.resource_lookup(sizes, "fixture.large"),
            R"({"schema":"sortie.resource/1","cpu":8,"memMB":8192})");
  EXPECT_EQ(host.resource_lookup(sizes, "fixture.huge"), std::nullopt);
}

TEST(PluginHostTest, PluginLogMessagesBecomeDiagnostics) {
  PluginHost host;
  const Registry registry = fixture("fixture_good");
  host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), "{\"k\":1}");
  const std::vector<std::string> diagnostics = host.diagnostics();
  EXPECT_NE(std::find(diagnostics.begin(), diagnostics.end(),
                      "plugin fixture_good: created with {\"k\":1}"),
            diagnostics.end());
}

TEST(PluginHostTest, EachHostPrintsDiagnosticsAtItsOwnLevel) {
  // Two hosts in one process (two sessions): one prints progress (INFO), the other only warnings.
  PluginHost verbose({}, SORTIE_LOG_INFO);
  PluginHost quiet({}, SORTIE_LOG_WARNING);
  const Registry registry = fixture("fixture_good");
  const Entry& scheduler = only_entry(registry, Group::kSchedulers, "fixture_sched");
  testing::internal::CaptureStderr();
  quiet.scheduler(scheduler, R"({"by":"quiet"})");
  verbose.scheduler(scheduler, R"({"by":"verbose"})");
  quiet.scheduler(scheduler, R"({"by":"quiet again"})");
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "sortie: plugin fixture_good: created with {\"by\":\"verbose\"}\n");
}

TEST(PluginHostTest, EntriesOfTheWrongKindAreRefused) {
  PluginHost host;
  const Registry registry = fixture("fixture_good");
  expect_error(
      [&] { host.image_provider(only_entry(registry, Group::kSchedulers, "fixture_sched"), "{}"); },
      SORTIE_INVALID_ARGUMENT,
      {"sortie.schedulers entry 'fixture_sched' (manifest ",
       "cannot be used where sortie.image_providers is expected"});
  Entry data;
  data.group = Group::kNamedResources;
  data.name = "gpu.small";
  data.manifest_path = "/etc/sortie/r.json";
  data.data_json = R"({"gpu":1})";
  expect_error([&] { host.resource_names(data); }, SORTIE_INVALID_ARGUMENT,
               {"named-resource registry 'gpu.small' (manifest /etc/sortie/r.json) is a data "
                "entry with no plugin library"});
}

TEST(PluginHostTest, LibraryWithoutEntryPointIsNotAPlugin) {
  expect_load_error("fixture_raw_no_entry", SORTIE_FAILED_PRECONDITION,
                    {"not a sortie plugin: the library exports no 'sortie_plugin_negotiate' (was "
                     "it built with SORTIE_PLUGIN(...) / sortie_add_plugin?)"});
}

TEST(PluginHostTest, UndefinedSymbolQuotesTheDynamicLinker) {
  expect_load_error("fixture_raw_undefined_symbol", SORTIE_FAILED_PRECONDITION,
                    {"cannot load the library: ",
                     "libfixture_raw_undefined_symbol.so: undefined "
                     "symbol: sortie_fixture_missing_symbol",
                     "ldd -r"});
}

TEST(PluginHostTest, PluginChoosingAnotherAbiMajorIsRefused) {
  expect_load_error("fixture_raw_abi_major2", SORTIE_FAILED_PRECONDITION,
                    {"the plugin chose ABI 2.0, outside the host's range [1.0, 1.2]; rebuild the "
                     "plugin against sortie SDK >= 1.0"});
}

TEST(PluginHostTest, FailedNegotiationCarriesThePluginsMessage) {
  expect_load_error("fixture_raw_refuses", SORTIE_FAILED_PRECONDITION,
                    {"negotiation failed (FAILED_PRECONDITION): raw fixture speaks ABI 3.0 only; "
                     "this host speaks ABI [1.0, 1.2]"});
}

TEST(PluginHostTest, InvalidAnswersAreRefused) {
  expect_load_error("fixture_raw_null_components", SORTIE_INTERNAL,
                    {"invalid negotiation answer: component_count is 1 but components is NULL",
                     "report it to its authors"});
  expect_load_error("fixture_raw_empty_plugin_name", SORTIE_INTERNAL,
                    {"invalid negotiation answer: sortie_plugin_info.name is empty"});
  expect_load_error("fixture_raw_empty_component_name", SORTIE_INTERNAL,
                    {"invalid negotiation answer: component #0 has an empty name"});
  expect_load_error("fixture_raw_duplicate_names", SORTIE_INTERNAL,
                    {"two components are the scheduler 'raw_sched'; names must be unique per "
                     "kind"});
  expect_load_error("fixture_raw_null_vtable", SORTIE_INTERNAL,
                    {"scheduler 'raw_null' has a NULL vtable"});
  expect_load_error("fixture_raw_unknown_kind", SORTIE_INTERNAL,
                    {"component #0 ('raw_sched') has unknown kind 99; this host knows kinds 1 to "
                     "4"});
  expect_load_error("fixture_raw_partial_log", SORTIE_INTERNAL,
                    {"scheduler 'raw_sched' implements only some of log_open, log_next and "
                     "log_close; provide all three or none"});
  const size_t claimed = offsetof(sortie_scheduler_vtable, dryrun);
  const size_t needed =
      offsetof(sortie_scheduler_vtable, cancel) + sizeof(sortie_scheduler_vtable::cancel);
  expect_load_error("fixture_raw_small_vtable", SORTIE_INTERNAL,
                    {"scheduler 'raw_sched' has a function table of " + std::to_string(claimed) +
                     " bytes, smaller than the " + std::to_string(needed) +
                     " bytes the host needs (up to 'cancel')"});
}

TEST(PluginHostTest, AbsentOptionalCallsAreUnimplemented) {
  PluginHost host;
  const Registry registry = fixture("fixture_raw_minimal");
  auto scheduler = host.scheduler(only_entry(registry, Group::kSchedulers, "raw_sched"), kConfig);
  EXPECT_FALSE(scheduler->can_wait());
  const std::string context = "scheduler 'raw_sched' (plugin fixture_raw_minimal, ";
  expect_error([&] { scheduler->list("{}"); }, SORTIE_UNIMPLEMENTED,
               {context, ") does not support list"});
  expect_error([&] { scheduler->wait("a", "", 10); }, SORTIE_UNIMPLEMENTED,
               {context, ") does not support wait"});
  expect_error([&] { scheduler->log_open("a", "{}"); }, SORTIE_UNIMPLEMENTED,
               {context, ") does not support log"});
  expect_error([&] { scheduler->dryrun("{}"); }, SORTIE_UNIMPLEMENTED,
               {"dryrun failed: raw fixture: the host must never call this scheduler"});
}

TEST(PluginHostTest, ManifestPromisingAMissingComponentIsRefused) {
  expect_load_error("fixture_missing_component", SORTIE_FAILED_PRECONDITION,
                    {"the manifest promises scheduler 'ghost' but the library has no such "
                     "component (it has: scheduler 'fixture_sched', image provider "
                     "'fixture_images', named-resource registry 'fixture_sizes'); fix 'provides' "
                     "in the manifest"});
}

TEST(PluginHostTest, UnlistedComponentsAreOnlyDiagnostics) {
  PluginHost host;
  const Registry registry = fixture("fixture_unlisted");
  const Entry& entry = only_entry(registry, Group::kSchedulers, "fixture_sched");
  EXPECT_EQ(host.load(*entry.plugin).components.size(), 3u);
  const std::string expected =
      "plugin fixture_unlisted: the library has image provider "
      "'fixture_images', which manifest " +
      entry.manifest_path + " does not list, so it cannot be used; add it to 'provides'";
  const std::vector<std::string> diagnostics = host.diagnostics();
  EXPECT_NE(std::find(diagnostics.begin(), diagnostics.end(), expected), diagnostics.end());
}

TEST_F(PluginHostFileTest, MissingLibraryNamesThePathAndTheFix) {
  PluginHost host;
  const Registry registry = Registry::from_files({write_manifest("gone/libgone.so")});
  const Entry& entry = only_entry(registry, Group::kSchedulers, "s");
  expect_error([&] { host.load(*entry.plugin); }, SORTIE_FAILED_PRECONDITION,
               {"plugin 'scratch' (" + (scratch_ / "gone/libgone.so").string() + ", manifest " +
                entry.manifest_path + "): the library " + (scratch_ / "gone/libgone.so").string() +
                " does not exist; reinstall the plugin or fix 'library' in the manifest"});
  expect_good_plugin_works(host);
}

// The library aborts when loaded, so these pass only if the ABI check comes first.
TEST_F(PluginHostFileTest, ManifestAbiOutsideTheHostsRangeIsRefusedWithoutLoading) {
  PluginHost host;
  const Registry newer =
      Registry::from_files({write_manifest(SORTIE_FIXTURE_ABORT_LIBRARY, "2.0", "2.1")});
  expect_error([&] { host.load(*only_entry(newer, Group::kSchedulers, "s").plugin); },
               SORTIE_FAILED_PRECONDITION,
               {"the manifest declares ABI [2.0, 2.1] but this host speaks [1.0, 1.2]; upgrade "
                "sortie to a release that speaks ABI 2.0"});
  fs::create_directories(scratch_ / "older");
  fs::copy_file(SORTIE_FIXTURE_ABORT_LIBRARY, scratch_ / "older/libold.so");
  const Registry older = Registry::from_files({write_manifest("older/libold.so", "0.1", "0.9")});
  expect_error([&] { host.load(*only_entry(older, Group::kSchedulers, "s").plugin); },
               SORTIE_FAILED_PRECONDITION,
               {"the manifest declares ABI [0.1, 0.9] but this host speaks [1.0, 1.2]; rebuild "
                "the plugin against sortie SDK >= 1.0"});
}

TEST_F(PluginHostFileTest, LoadFailuresAreCachedPerLibrary) {
  const fs::path library = scratch_ / "libflaky.so";
  fs::copy_file(
      fs::path(SORTIE_FIXTURE_MANIFEST_DIR).parent_path() / "lib" / "libfixture_raw_no_entry.so",
      library);
  const Registry registry = Registry::from_files({write_manifest("libflaky.so")});
  const Entry& entry = only_entry(registry, Group::kSchedulers, "s");
  PluginHost host;
  expect_error([&] { host.load(*entry.plugin); }, SORTIE_FAILED_PRECONDITION,
               {"not a sortie plugin"});
  fs::remove(library);  // a retry would now report a missing file
  PluginHost later_host;
  expect_error([&] { later_host.load(*entry.plugin); }, SORTIE_FAILED_PRECONDITION,
               {"not a sortie plugin"});
}

TEST(PluginHostTest, ThrowingCreateBecomesInternal) {
  PluginHost host;
  const Registry registry = fixture("fixture_create_throws");
  expect_error(
      [&] { host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig); },
      SORTIE_INTERNAL,
      {"scheduler 'fixture_sched' (plugin fixture_create_throws, ",
       "): create failed: unexpected exception: backend unreachable"});
  expect_good_plugin_works(host);
}

TEST(PluginHostTest, SdkTrampolinesMapExceptionsToStatuses) {
  PluginHost host;
  const Registry registry = fixture("fixture_throws");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->run_options(); }, SORTIE_RESOURCE_EXHAUSTED,
               {"run_options failed: out of memory"});
  expect_error([&] { scheduler->dryrun("{}"); }, SORTIE_INTERNAL,
               {"dryrun failed: unexpected exception: dryrun exploded"});
  expect_error([&] { scheduler->schedule("{}"); }, SORTIE_INTERNAL,
               {"schedule failed: unexpected exception of unknown type"});
  expect_error([&] { scheduler->cancel("a"); }, SORTIE_UNKNOWN,
               {"cancel failed with status 99, which is not a sortie status (treated as UNKNOWN): "
                "cancel used a status of its own"});
  expect_error([&] { scheduler->wait("a", "", 0); }, SORTIE_NOT_FOUND, {"wait failed: no app a"});
  expect_good_plugin_works(host);
}

TEST(PluginHostTest, MalformedPayloadsAreInternalErrors) {
  PluginHost host;
  const Registry registry = fixture("fixture_bad_json");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->dryrun("{}"); }, SORTIE_INTERNAL,
               {"scheduler 'fixture_sched' (plugin fixture_bad_json, ",
                "): dryrun returned an invalid payload: not JSON (Missing a name for object "
                "member. at offset 1) (docs/payloads.md); this is a bug in the plugin"});
  scheduler->schedule(R"({"schema":"sortie.dryrun/1"})");
  expect_error([&] { scheduler->describe("fixture-1"); }, SORTIE_INTERNAL,
               {"describe returned an invalid payload: not a JSON object"});
  expect_good_plugin_works(host);
}

TEST(PluginHostTest, WrongSchemasAreInternalErrors) {
  PluginHost host;
  const Registry registry = fixture("fixture_wrong_schema");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->dryrun("{}"); }, SORTIE_INTERNAL,
               {"dryrun returned an invalid payload: schema \"sortie.status/1\", expected "
                "\"sortie.dryrun/1\""});
  expect_error([&] { scheduler->run_options(); }, SORTIE_INTERNAL,
               {"run_options returned an invalid payload: no \"schema\" string; expected "
                "\"sortie.runopts/1\""});
  expect_good_plugin_works(host);
}

}  // namespace
}  // namespace sortie::plugin_host
