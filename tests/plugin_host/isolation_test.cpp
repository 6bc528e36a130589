// Tests for sortie/plugin_host/plugin_isolation.hpp: plugins run in the sortie-plugin-host helper
// answer exactly as in process, and the fixtures that segfault, abort, exit, hang or print to
// stdout, in the entry point or in schedule(), each become a clear Error (a successful schedule
// that printed: an error diagnostic, so the app is not lost) while this process lives on.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <regex>
#include <sortie/model/error.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace sortie::plugin_host {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using registry::Entry;
using registry::Group;
using registry::Registry;

constexpr const char* kConfig =
    R"({"schema":"sortie.scheduler_config/1","scheduler":"fixture_sched","session":"t"})";
constexpr const char* kRequest = R"({"schema":"sortie.dryrun/1","app_id":"fixture-1"})";

// The isolation settings of the PluginHosts a test makes next (each test sets them first).
IsolationOptions& test_isolation() {
  static IsolationOptions options;
  return options;
}

// Every library the next hosts load runs isolated; `timeout` bounds each call.
void isolate_everything(std::chrono::milliseconds timeout = 120s) {
  IsolationOptions options;
  options.isolate_all = true;
  options.call_timeout = timeout;
  options.helper_path = SORTIE_PLUGIN_HELPER;
  test_isolation() = options;
}

std::string library_of(const std::string& fixture) {
  return (fs::path(SORTIE_FIXTURE_MANIFEST_DIR).parent_path() / "lib" / ("lib" + fixture + ".so"))
      .string();
}

Registry fixture(const std::string& name) {
  return Registry::from_files({std::string(SORTIE_FIXTURE_MANIFEST_DIR) + "/" + name + ".json"});
}

// A new empty directory for the running test. The host keeps each library it loaded, isolated
// or not, for the life of the process (by path), and with it a helper an earlier test killed: a
// test that must see a first load, or a live helper, uses library copies of its own, at a path
// no other test (nor a repeat of this one, --gtest_repeat) uses.
fs::path fresh_scratch_dir() {
  static int made = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(SORTIE_TEST_BINARY_DIR) / "scratch" /
                       (std::string(info->name()) + "." + std::to_string(++made));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A copy of fixture `library` in `dir`.
std::string copy_fixture(const fs::path& dir, const std::string& library) {
  const fs::path copy = dir / ("lib" + library + ".so");
  fs::copy_file(library_of(library), copy, fs::copy_options::overwrite_existing);
  return copy.string();
}

// A manifest of plugin `plugin` (<dir>/<plugin>.json) for the scheduler of the library at
// `library_path`, with the given "isolation" member.
Registry manifest_in(const fs::path& dir, const std::string& plugin,
                     const std::string& library_path, const std::string& isolation) {
  const std::string path = (dir / (plugin + ".json")).string();
  std::ofstream(path) << R"({"file_format_version": "1.0", "plugin": {"name": ")" << plugin
                      << R"(", "version": "1", "library": ")" << library_path
                      << R"(", "abi": {"min": "1.0", "max": "1.0"}, "isolation": ")" << isolation
                      << R"("}, "provides": [{"group": "sortie.schedulers", "name":
      "fixture_sched"}]})";
  return Registry::from_files({path});
}

const Entry& only_entry(const Registry& registry, Group group, const std::string& name) {
  const Entry* entry = registry.find(group, name);
  if (entry == nullptr) throw std::runtime_error("fixture manifest lacks " + name);
  return *entry;
}

// Runs `call`, which must throw Error with `status` and a message containing every part; returns
// the message.
std::string expect_error(const std::function<void()>& call, sortie_status status,
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
    return error.what();
  }
  return "";
}

bool mapped_here(const std::string& library) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find(library) != std::string::npos;
}

// The helper's pid, out of "the plugin's process (pid N)".
pid_t helper_pid_in(const std::string& message) {
  std::smatch match;
  if (!std::regex_search(message, match, std::regex(R"(\(pid (\d+)\))"))) return -1;
  return static_cast<pid_t>(std::stol(match[1]));
}

void expect_good_plugin_works(PluginHost& host) {
  const Registry registry = fixture("fixture_good");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  EXPECT_NE(scheduler->dryrun(R"({"schema":"sortie.dryrun_input/1"})").find("\"fixture-1\""),
            std::string::npos);
}

// The fixture's scheduler works until schedule(), which fails with `status` and `parts`; later
// calls report the same cause, and other plugins keep working.
void expect_schedule_contained(const std::string& name, sortie_status status,
                               std::initializer_list<std::string> parts) {
  SCOPED_TRACE(name);
  PluginHost host(test_isolation());
  // The schedule() below kills the helper: a copy of its own keeps it from the other tests.
  const fs::path dir = fresh_scratch_dir();
  const std::string library = copy_fixture(dir, name);
  const Registry registry = manifest_in(dir, name, library, "subprocess");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  EXPECT_EQ(scheduler->run_options(), R"({"schema":"sortie.runopts/1","options":[]})");
  const std::string context =
      "scheduler 'fixture_sched' (plugin " + name + ", " + library + "): schedule failed: ";
  const std::string message = expect_error([&] { scheduler->schedule(kRequest); }, status, parts);
  EXPECT_EQ(message.rfind(context, 0), 0u) << message;
  EXPECT_NE(message.find("; run `sortie plugins doctor " + name + "` to check the plugin"),
            std::string::npos)
      << message;
  const pid_t helper = helper_pid_in(message);
  ASSERT_GT(helper, 0) << message;
  EXPECT_EQ(::kill(helper, 0), -1) << "helper " << helper << " was not reaped";
  EXPECT_EQ(errno, ESRCH);
  expect_error([&] { scheduler->describe("fixture-1"); }, status,
               {"describe failed: the plugin's process is gone: the plugin"});
  expect_good_plugin_works(host);
}

// Loading the fixture fails with `status` and `parts`, twice (the error is kept); other plugins
// keep working.
void expect_load_contained(const std::string& name, sortie_status status,
                           std::initializer_list<std::string> parts) {
  SCOPED_TRACE(name);
  PluginHost host(test_isolation());
  const Registry registry = fixture(name);
  const Entry& entry = *registry.entries(Group::kSchedulers).at(0);
  const std::string context =
      "plugin '" + name + "' (" + library_of(name) + ", manifest " + entry.manifest_path + "): ";
  const auto load = [&] { host.load(*entry.plugin); };
  const std::string message = expect_error(load, status, parts);
  EXPECT_EQ(message.rfind(context, 0), 0u) << message;
  EXPECT_EQ(expect_error(load, status, {}), message);
  expect_good_plugin_works(host);
}

TEST(IsolationTest, GoodPluginRunsInAHelperAndAnswersEveryCall) {
  isolate_everything();
  PluginHost host(test_isolation());
  const Registry registry = fixture("fixture_good");
  const Entry& entry = only_entry(registry, Group::kSchedulers, "fixture_sched");
  const LoadedPlugin& plugin = host.load(*entry.plugin);
  EXPECT_EQ(plugin.name, "fixture_good");
  EXPECT_EQ(plugin.version, "1.2.3");
  EXPECT_EQ(plugin.abi_version, SORTIE_ABI_CURRENT);
  EXPECT_EQ(plugin.library_path, library_of("fixture_good"));
  ASSERT_EQ(plugin.components.size(), 3u);
  EXPECT_STREQ(plugin.components[1]->name, "fixture_images");
  EXPECT_STREQ(plugin.components[0]->description, "A scheduler for host tests");
  EXPECT_FALSE(mapped_here(library_of("fixture_good")));

  auto scheduler = host.scheduler(entry, kConfig);
  EXPECT_EQ(scheduler->run_options(), R"({"schema":"sortie.runopts/1","options":[]})");
  const std::string input = R"({"schema":"sortie.dryrun_input/1"})";
  const std::string request = scheduler->dryrun(input);
  EXPECT_EQ(request,
            R"({"schema":"sortie.dryrun/1","app_id":"fixture-1","request":{"input_bytes":)" +
                std::to_string(input.size()) + "}}");
  EXPECT_EQ(scheduler->describe("fixture-1"), std::nullopt);
  EXPECT_EQ(scheduler->schedule(request), "fixture-1");
  EXPECT_NE(scheduler->describe("fixture-1")->find("\"SUCCEEDED\""), std::string::npos);
  EXPECT_NE(scheduler->list("{}").find("\"app_id\":\"fixture-1\""), std::string::npos);
  scheduler->cancel("fixture-1");
  ASSERT_TRUE(scheduler->can_wait());
  EXPECT_NE(scheduler->wait("fixture-1", "RUNNING", 1000).find("sortie.status/1"),
            std::string::npos);
  expect_error([&] { scheduler->cancel("nope"); }, SORTIE_NOT_FOUND,
               {"scheduler 'fixture_sched' (plugin fixture_good, " + library_of("fixture_good") +
                "): cancel failed: no app nope"});
  EXPECT_FALSE(mapped_here(library_of("fixture_good")));
}

// Issue 13: schedule_batch (ABI-14) crosses the helper whole: requests in order, byte-exact
// (the third is not UTF-8), one app id each back; a batch the plugin fails part-way, or dies
// in, reads as the same call would in process.
TEST(IsolationTest, ScheduleBatchCrossesAsOneCall) {
  isolate_everything();
  PluginHost host(test_isolation());
  const Registry registry = fixture("fixture_good");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  ASSERT_TRUE(scheduler->can_schedule_batch());
  const std::vector<std::string> requests = {
      R"({"schema":"sortie.dryrun/1","app_id":"batch-1"})",
      R"({"schema":"sortie.dryrun/1","app_id":"batch-2","note":"tab\t quote\""})",
      "{\"schema\":\"sortie.dryrun/1\",\"app_id\":\"batch-3\",\"raw\":\"\xff\xfe\"}"};
  EXPECT_EQ(scheduler->schedule_batch(requests),
            (std::vector<std::string>{"batch-1", "batch-2", "batch-3"}));
  for (const char* app_id : {"batch-1", "batch-2", "batch-3"}) {
    EXPECT_TRUE(scheduler->describe(app_id).has_value()) << app_id;
  }

  for (const auto& [name, status, part] :
       {std::tuple{"fixture_batchfailspartway", SORTIE_UNAVAILABLE,
                   "schedule_batch failed: the backend dropped the batch after 2 apps"},
        std::tuple{"fixture_batchabortspartway", SORTIE_UNAVAILABLE,
                   ") died of SIGABRT (Aborted) during schedule_batch"}}) {
    SCOPED_TRACE(name);
    PluginHost failing_host(test_isolation());
    const Registry failing = fixture(name);
    auto batch =
        failing_host.scheduler(only_entry(failing, Group::kSchedulers, "fixture_sched"), kConfig);
    ASSERT_TRUE(batch->can_schedule_batch());
    expect_error([&] { batch->schedule_batch(requests); }, status, {part});
  }
}

TEST(IsolationTest, LogsCrossWholeWithEveryField) {
  isolate_everything();
  PluginHost host(test_isolation());
  const Registry registry = fixture("fixture_good");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->log_open("fixture-1", "{}"); }, SORTIE_NOT_FOUND,
               {"log_open failed: no app fixture-1"});
  scheduler->schedule(kRequest);
  auto reader = scheduler->log_open("fixture-1", R"({"schema":"sortie.log_request/1"})");
  std::vector<std::string> lines;
  const auto collect = [&](const LogLineView& line) {
    lines.push_back(std::string(line.role) + "/" + std::to_string(line.replica_id) + "@" +
                    std::to_string(line.timestamp_ns) + "#" + std::to_string(line.stream) + ":" +
                    std::string(line.data));
  };
  while (reader->next(100, collect)) {
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"main/0@1700000000000000000#1:hello\n",
                                             "main/0@1700000000000000001#1:world\n"}));
  auto throwing_reader = scheduler->log_open("fixture-1", "{}");
  EXPECT_THROW(throwing_reader->next(100, [](const LogLineView&) { throw std::logic_error("x"); }),
               std::logic_error);
}

TEST(IsolationTest, ImageProvidersNamedResourcesAndDiagnosticsCross) {
  isolate_everything();
  PluginHost host(test_isolation());
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
  host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), "{\"k\":1}");
  const std::vector<std::string> diagnostics = host.diagnostics();
  EXPECT_NE(std::find(diagnostics.begin(), diagnostics.end(),
                      "plugin fixture_good: created with {\"k\":1}"),
            diagnostics.end());
}

TEST(IsolationTest, BadAnswersReadAsInProcess) {
  isolate_everything();
  PluginHost host(test_isolation());
  const Registry bad_json = fixture("fixture_bad_json");
  auto scheduler =
      host.scheduler(only_entry(bad_json, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->dryrun("{}"); }, SORTIE_INTERNAL,
               {"scheduler 'fixture_sched' (plugin fixture_bad_json, ",
                "): dryrun returned an invalid payload: not JSON (Missing a name for object "
                "member. at offset 1)"});
  const Registry throws = fixture("fixture_throws");
  auto thrower = host.scheduler(only_entry(throws, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { thrower->run_options(); }, SORTIE_RESOURCE_EXHAUSTED,
               {"run_options failed: out of memory"});
  expect_error([&] { thrower->cancel("a"); }, SORTIE_UNKNOWN,
               {"cancel failed with status 99, which is not a sortie status"});
  const Registry creates = fixture("fixture_create_throws");
  expect_error(
      [&] { host.scheduler(only_entry(creates, Group::kSchedulers, "fixture_sched"), kConfig); },
      SORTIE_INTERNAL, {"): create failed: unexpected exception: backend unreachable"});
  const Registry minimal = fixture("fixture_raw_minimal");
  auto bare = host.scheduler(only_entry(minimal, Group::kSchedulers, "raw_sched"), kConfig);
  EXPECT_FALSE(bare->can_wait());
  expect_error([&] { bare->list("{}"); }, SORTIE_UNIMPLEMENTED, {") does not support list"});
  expect_error([&] { bare->log_open("a", "{}"); }, SORTIE_UNIMPLEMENTED,
               {") does not support log"});
}

// F2/F3 of issue 16: the host parses what the helper relays, so its limits hold here too.
TEST(IsolationTest, AnswersPastTheLimitsAreRefusedAsInProcess) {
  isolate_everything();
  PluginHost host(test_isolation());
  const Registry registry = fixture("fixture_unbounded");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->dryrun("{}"); }, SORTIE_INTERNAL,
               {"dryrun returned an invalid payload: its JSON nesting exceeds the limit of 128"});
  expect_error([&] { scheduler->schedule("{}"); }, SORTIE_INTERNAL,
               {"the app id schedule wrote exceeds the limit of 1024 bytes"});
  expect_error([&] { scheduler->describe("a"); }, SORTIE_INTERNAL,
               {"describe returned an invalid payload: its size exceeds the limit of 4194304"});
  expect_good_plugin_works(host);
}

TEST(IsolationTest, LoadErrorsReadAsInProcess) {
  isolate_everything();
  expect_load_contained("fixture_raw_no_entry", SORTIE_FAILED_PRECONDITION,
                        {"not a sortie plugin: the library exports no 'sortie_plugin_negotiate'"});
  expect_load_contained("fixture_raw_refuses", SORTIE_FAILED_PRECONDITION,
                        {"negotiation failed (FAILED_PRECONDITION): raw fixture speaks ABI 3.0 "
                         "only"});
  expect_load_contained("fixture_raw_duplicate_names", SORTIE_INTERNAL,
                        {"two components are the scheduler 'raw_sched'"});
  expect_load_contained("fixture_missing_component", SORTIE_FAILED_PRECONDITION,
                        {"the manifest promises scheduler 'ghost' but the library has no such "
                         "component"});
}

TEST(IsolationTest, SegfaultInScheduleIsContained) {
  isolate_everything();
  expect_schedule_contained(
      "fixture_segfault", SORTIE_UNAVAILABLE,
      {"the plugin's process (pid ", ") died of SIGSEGV (Segmentation fault) during schedule"});
}

TEST(IsolationTest, AbortInScheduleIsContained) {
  isolate_everything();
  expect_schedule_contained("fixture_abort", SORTIE_UNAVAILABLE,
                            {") died of SIGABRT (Aborted) during schedule"});
}

TEST(IsolationTest, ExitInScheduleIsContained) {
  isolate_everything();
  expect_schedule_contained(
      "fixture_exit", SORTIE_UNAVAILABLE,
      {") exited with status 0 during schedule; a plugin must never call exit (ABI-11)"});
}

TEST(IsolationTest, HangInScheduleMeetsTheDeadline) {
  isolate_everything(300ms);
  expect_schedule_contained(
      "fixture_hang", SORTIE_DEADLINE_EXCEEDED,
      {"the plugin did not answer schedule within 0.3 s, so the plugin's process (pid ",
       ") was stopped"});
}

TEST(IsolationTest, StdoutInScheduleIsAnErrorDiagnosticButTheAppIsKept) {
  isolate_everything();
  PluginHost host(test_isolation());
  const Registry registry = fixture("fixture_stdout");
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  // The app was submitted, so its id comes back (to be recorded) instead of an error.
  EXPECT_EQ(scheduler->schedule(kRequest), "fixture-1");
  const std::vector<std::string> diagnostics = host.diagnostics();
  const std::string expected =
      "the plugin wrote to stdout during schedule: 'scheduling 1 app\\n'; a plugin writes only "
      "through its sinks and sortie_host_api.log (ABI-11), so sortie kept the text off its own "
      "output";
  EXPECT_TRUE(std::any_of(diagnostics.begin(), diagnostics.end(), [&](const std::string& d) {
    return d.find(expected) != std::string::npos && d.find("fixture_stdout") != std::string::npos;
  })) << ::testing::PrintToString(diagnostics);
  EXPECT_NE(scheduler->describe("fixture-1")->find("\"SUCCEEDED\""), std::string::npos);
}

TEST(IsolationTest, MisbehaviourInTheEntryPointIsContained) {
  isolate_everything(300ms);
  const std::string during = " during loading (dlopen and sortie_plugin_negotiate)";
  expect_load_contained("fixture_raw_segfault_in_negotiate", SORTIE_UNAVAILABLE,
                        {"died of SIGSEGV (Segmentation fault)" + during});
  expect_load_contained("fixture_raw_abort_in_negotiate", SORTIE_UNAVAILABLE,
                        {"died of SIGABRT (Aborted)" + during});
  expect_load_contained("fixture_raw_exit_in_negotiate", SORTIE_UNAVAILABLE,
                        {"exited with status 3" + during});
  expect_load_contained("fixture_raw_hang_in_negotiate", SORTIE_DEADLINE_EXCEEDED,
                        {"the plugin did not answer loading (dlopen and sortie_plugin_negotiate) "
                         "within 0.3 s"});
  expect_load_contained("fixture_raw_stdout_in_negotiate", SORTIE_INTERNAL,
                        {"the plugin wrote to stdout during loading (dlopen and "
                         "sortie_plugin_negotiate): 'raw fixture says hello on stdout\\n'"});
  // A constructor that aborts at dlopen is caught the same way.
  expect_load_contained("fixture_raw_abort_on_load", SORTIE_UNAVAILABLE,
                        {"died of SIGABRT (Aborted)" + during});
}

class IsolationFileTest : public ::testing::Test {
 protected:
  void SetUp() override { scratch_ = fresh_scratch_dir(); }
  // A copy of fixture `library` at a path of this test's own (see fresh_scratch_dir).
  std::string private_copy(const std::string& library) { return copy_fixture(scratch_, library); }
  // A manifest of plugin `plugin` for the scheduler of the library at `library_path`, with the
  // given "isolation" member.
  Registry manifest(const std::string& library_path, const std::string& isolation,
                    const std::string& plugin = "scratch") {
    return manifest_in(scratch_, plugin, library_path, isolation);
  }
  fs::path scratch_;
};

TEST_F(IsolationFileTest, ManifestFlagIsolatesOneLibrary) {
  IsolationOptions options;
  options.helper_path = SORTIE_PLUGIN_HELPER;
  test_isolation() = options;  // isolate_all stays false
  const std::string segfault = private_copy("fixture_segfault");
  const Registry registry = manifest(segfault, "subprocess");
  PluginHost host(test_isolation());
  auto scheduler =
      host.scheduler(only_entry(registry, Group::kSchedulers, "fixture_sched"), kConfig);
  expect_error([&] { scheduler->schedule(kRequest); }, SORTIE_UNAVAILABLE,
               {"died of SIGSEGV (Segmentation fault) during schedule"});
  EXPECT_FALSE(mapped_here(segfault));
  // In process, from a copy: the shared fixture_good must stay unmapped here for the tests that
  // check it runs in a helper, whatever order the tests run in.
  const std::string good = private_copy("fixture_good");
  const Registry in_process = manifest(good, "in_process", "scratch_good");
  auto good_scheduler =
      host.scheduler(only_entry(in_process, Group::kSchedulers, "fixture_sched"), kConfig);
  EXPECT_NE(good_scheduler->dryrun(R"({"schema":"sortie.dryrun_input/1"})").find("\"fixture-1\""),
            std::string::npos);
  EXPECT_TRUE(mapped_here(good));
}

TEST_F(IsolationFileTest, UnknownIsolationModeIsAManifestProblem) {
  const Registry registry = manifest(library_of("fixture_good"), "sandbox");
  ASSERT_EQ(registry.problems().size(), 1u);
  EXPECT_EQ(registry.problems()[0].message,
            "plugin.isolation: 'sandbox' is not an isolation mode; use \"in_process\" (the "
            "default) or \"subprocess\"");
}

TEST_F(IsolationFileTest, MissingHelperIsNamed) {
  IsolationOptions options;
  options.isolate_all = true;
  options.helper_path = "/nonexistent/sortie-plugin-host";
  test_isolation() = options;
  PluginHost host(test_isolation());
  const Registry registry = manifest(private_copy("fixture_good"), "subprocess");
  expect_error([&] { host.load(*registry.entries(Group::kSchedulers).at(0)->plugin); },
               SORTIE_FAILED_PRECONDITION,
               {"plugin 'scratch' (",
                "): cannot run the plugin in a helper process: "
                "/nonexistent/sortie-plugin-host is missing; reinstall "
                "sortie"});
}

// A helper from another sortie build answers `load` with another wire protocol version (ISO-3):
// the host refuses it by name rather than misreading its calls.
TEST_F(IsolationFileTest, AHelperOfAnotherWireProtocolIsRefusedByName) {
  const fs::path helper = scratch_ / "sortie-plugin-host";
  std::ofstream(helper) << R"(#!/usr/bin/python3
import json, os, struct
channel = os.fdopen(3, "r+b", buffering=0)
length = struct.unpack("<I", channel.read(4))[0]
channel.read(length)
reply = json.dumps({"status": 0, "wire": 99, "plugin": {}}).encode()
channel.write(struct.pack("<I", len(reply)) + reply)
channel.read(1)
)";
  fs::permissions(helper, fs::perms::owner_all);
  IsolationOptions options;
  options.isolate_all = true;
  options.helper_path = helper.string();
  test_isolation() = options;
  PluginHost host(test_isolation());
  const Registry registry = manifest(private_copy("fixture_good"), "subprocess");
  expect_error([&] { host.load(*registry.entries(Group::kSchedulers).at(0)->plugin); },
               SORTIE_FAILED_PRECONDITION,
               {"plugin 'scratch' (",
                "): the isolation helper (sortie-plugin-host) speaks wire "
                "protocol 99, this sortie 1 (ISO-3)"});
}

TEST(IsolationTest, EnvironmentAndTimeoutParsing) {
  EXPECT_EQ(parse_timeout_seconds("0.25", "--plugin-timeout"), 250ms);
  EXPECT_EQ(parse_timeout_seconds("30", "--plugin-timeout"), 30s);
  expect_error([] { parse_timeout_seconds("soon", "SORTIE_PLUGIN_TIMEOUT"); },
               SORTIE_INVALID_ARGUMENT,
               {"SORTIE_PLUGIN_TIMEOUT: 'soon' is not a number of seconds; give a positive "
                "number such as 30 or 0.5"});
  expect_error([] { parse_timeout_seconds("-1", "--plugin-timeout"); }, SORTIE_INVALID_ARGUMENT,
               {"--plugin-timeout: '-1'"});
  ::setenv("SORTIE_ISOLATE_PLUGINS", "1", 1);
  ::setenv("SORTIE_PLUGIN_TIMEOUT", "2.5", 1);
  const IsolationOptions options = isolation_options_from_env({});
  EXPECT_TRUE(options.isolate_all);
  EXPECT_EQ(options.call_timeout, 2500ms);
  ::setenv("SORTIE_ISOLATE_PLUGINS", "perhaps", 1);
  expect_error([] { isolation_options_from_env({}); }, SORTIE_INVALID_ARGUMENT,
               {"SORTIE_ISOLATE_PLUGINS: 'perhaps' is neither 1/true nor 0/false"});
  ::unsetenv("SORTIE_ISOLATE_PLUGINS");
  ::unsetenv("SORTIE_PLUGIN_TIMEOUT");
}

}  // namespace
}  // namespace sortie::plugin_host
