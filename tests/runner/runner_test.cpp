// Tests for sortie/runner.hpp: run, dryrun, status, describe, wait, cancel, list and log lines
// through the staged local_cwd plugin, with the store in a scratch SORTIE_STATE_DIR.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sortie/error.hpp>
#include <sortie/runner.hpp>
#include <string>

namespace sortie::runner {
namespace {

using std::chrono_literals::operator""ms;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_dir_ = std::filesystem::temp_directory_path() /
                 ("sortie_runner_test_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(state_dir_);
    setenv("SORTIE_STATE_DIR", state_dir_.c_str(), 1);
    Options options;
    options.plugin_dirs = {SORTIE_STAGE_DIR "/share/sortie/plugins.d"};
    options.quiet = true;
    options.session = "runner_test";
    runner_.emplace(Runner::create(options));
  }
  void TearDown() override {
    runner_.reset();
    std::filesystem::remove_all(state_dir_);
  }

  static AppSpec command(std::vector<std::string> words, int replicas = 1) {
    AppSpec app;
    app.command = std::move(words);
    app.replicas = replicas;
    return app;
  }

  std::filesystem::path state_dir_;
  std::optional<Runner> runner_;
};

TEST_F(RunnerTest, RunsWaitsAndReadsTheLogLinesOfAnApp) {
  const std::string handle =
      runner_->run(command({"sh", "-c", "echo out $SORTIE_REPLICA_ID; echo err >&2"}, 2));
  EXPECT_EQ(handle.rfind("local_cwd://runner_test/", 0), 0u) << handle;

  const AppStatus status = runner_->wait(handle);
  EXPECT_EQ(status.state, AppState::kSucceeded);
  ASSERT_EQ(status.roles.size(), 1u);
  EXPECT_EQ(status.roles[0].role, "sh");
  ASSERT_EQ(status.roles[0].replicas.size(), 2u);
  EXPECT_EQ(status.roles[0].replicas[1].exit_code, 0);

  LogOptions only_stdout;
  only_stdout.streams = Streams::kStdout;
  std::vector<std::string> texts;
  for (const LogLine& line : runner_->log_lines(handle, only_stdout)) {
    EXPECT_FALSE(line.stderr_stream);
    texts.push_back(line.role + "/" + std::to_string(line.replica) + " " + line.text);
  }
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(texts, (std::vector<std::string>{"sh/0 out 0\n", "sh/1 out 1\n"}));

  LogOptions replica_one;
  replica_one.replicas = {1};
  replica_one.regex = "^e";
  const auto lines = runner_->log_lines(handle, replica_one);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "err\n");
  EXPECT_TRUE(lines[0].stderr_stream);
}

TEST_F(RunnerTest, StatusDescribeAndListShowWhatRan) {
  const std::string handle = runner_->run(command({"false"}));
  EXPECT_EQ(runner_->wait(handle).state, AppState::kFailed);

  const auto status = runner_->status(handle);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(to_string(status->state), "FAILED");
  EXPECT_TRUE(is_terminal(status->state));

  const auto description = runner_->describe(handle);
  ASSERT_TRUE(description.has_value());
  EXPECT_NE(description->app_json.find("\"false\""), std::string::npos) << description->app_json;
  EXPECT_GT(description->submitted_at, 0);

  const AppList list = runner_->list();
  ASSERT_EQ(list.apps.size(), 1u);
  EXPECT_EQ(list.apps[0].handle, handle);
  EXPECT_EQ(list.apps[0].state, "FAILED");
  EXPECT_TRUE(runner_->list(ListOptions{"local_cwd", true, 0, {}}).apps.empty());
}

TEST_F(RunnerTest, CancelStopsARunningApp) {
  const std::string handle = runner_->run(command({"sleep", "60"}));
  EXPECT_FALSE(is_terminal(runner_->wait(handle, 50ms).state));
  runner_->cancel(handle);
  EXPECT_EQ(runner_->wait(handle).state, AppState::kCancelled);
}

TEST_F(RunnerTest, DryrunSubmitsNothing) {
  const std::string request = runner_->dryrun(command({"echo", "hi"}));
  EXPECT_NE(request.find("echo"), std::string::npos) << request;
  EXPECT_TRUE(runner_->list().apps.empty());
}

TEST_F(RunnerTest, ErrorsAreSortieErrorsNamingWhatIsWrong) {
  EXPECT_FALSE(runner_->status("local_cwd://runner_test/no_such_app").has_value());
  try {
    runner_->wait("local_cwd://runner_test/no_such_app");
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), sortie::Code::kNotFound);
    EXPECT_NE(std::string(error.what()).find("no_such_app"), std::string::npos) << error.what();
  }
  EXPECT_THROW(runner_->run(AppSpec{}), Error);
  EXPECT_THROW(runner_->run(command({"true"}), RunOptions{"no_such_scheduler", {}}), Error);
}

TEST_F(RunnerTest, DryrunInfoShowsWhatScheduleThenSubmits) {
  AppSpec app = command({"echo", "hi"});
  app.name = "greeting";
  const DryRunInfo info = runner_->dryrun_info(app, RunOptions{"local_cwd", {}, "cfg"});
  EXPECT_EQ(info.scheduler, "local_cwd");
  EXPECT_NE(info.plugin.find("scheduler 'local_cwd'"), std::string::npos) << info.plugin;
  EXPECT_NE(info.app_json.find("\"name\":\"greeting\""), std::string::npos) << info.app_json;
  EXPECT_NE(info.dryrun_json.find("sortie.dryrun/1"), std::string::npos) << info.dryrun_json;
  EXPECT_NE(info.request.find("argv: 'echo' 'hi'"), std::string::npos) << info.request;
  EXPECT_TRUE(runner_->list().apps.empty());

  const std::string handle = runner_->schedule(info);
  EXPECT_EQ(runner_->wait(handle).state, AppState::kSucceeded);
  const auto description = runner_->describe(handle);
  ASSERT_TRUE(description.has_value());
  EXPECT_NE(description->app_json.find("\"greeting\""), std::string::npos);
  EXPECT_THROW(runner_->schedule(DryRunInfo{}), Error);
  EXPECT_THROW(runner_->schedule(info), Error);  // once only: it would reuse the app id

  app.image = "example.com/trainer:1";
  const std::string app_json = runner_->dryrun_info(app).app_json;
  EXPECT_NE(app_json.find("\"image\":\"example.com/trainer:1\""), std::string::npos) << app_json;
}

TEST_F(RunnerTest, ComponentHelpOnlyWhenTheArgumentsAskForIt) {
  AppSpec app;
  app.component = "utils.echo";
  app.component_args = {"--help"};
  const auto help = runner_->component_help(app);
  ASSERT_TRUE(help.has_value());
  EXPECT_NE(help->find("--msg"), std::string::npos) << *help;
  app.component_args = {"--msg", "hi"};
  EXPECT_EQ(runner_->component_help(app), std::nullopt);
}

// What a user mistyped is an error whose message suggests the closest name, from the API itself.
TEST_F(RunnerTest, UnknownNamesSuggestTheClosest) {
  const auto message = [&](const AppSpec& app, const RunOptions& options) {
    try {
      runner_->run(app, options);
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), sortie::Code::kNotFound) << error.what();
      return std::string(error.what());
    }
    ADD_FAILURE() << "no error thrown";
    return std::string();
  };
  AppSpec component;
  component.component = "utils.ecko";
  EXPECT_NE(message(component, {})
                .find("unknown component 'utils.ecko' (did you mean "
                      "'utils.echo'?)"),
            std::string::npos);
  EXPECT_NE(message(command({"true"}), RunOptions{"local_cdw", {}, "cfg"})
                .find("unknown scheduler 'local_cdw' (did you mean 'local_cwd'?)"),
            std::string::npos);
  try {
    runner_->run(command({"true"}), RunOptions{"local_cwd", {{"log_dri", "/tmp"}}, "--options"});
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("'log_dri' (set in --options) (did you mean "
                        "'log_dir'?)"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(RunnerTest, ABadRegexIsAnErrorNamingTheFieldNotACommandLineOption) {
  EXPECT_EQ(regex_error("^loss=[0-9]+$"), std::nullopt);
  ASSERT_TRUE(regex_error("(").has_value());
  // Refused on its text before regcomp, which would take gigabytes (docs/limits.md L-15).
  EXPECT_EQ(regex_error("a{1,2000}"), std::nullopt);
  EXPECT_NE(regex_error("((a{1,100}){1,100}){1,100}b").value_or("").find("L-15"),
            std::string::npos);
  EXPECT_NE(regex_error("(a+){1001}").value_or("").find("L-15"), std::string::npos);
  EXPECT_EQ(regex_error("[{]{1,10}[[:digit:]{]{3}\\{x"), std::nullopt);
  const std::string handle = runner_->run(command({"true"}));
  runner_->wait(handle);
  LogOptions options;
  options.regex = "(";
  try {
    runner_->log_lines(handle, options);
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), sortie::Code::kInvalidArgument);
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("regex '(': ", 0), 0u) << message;
    EXPECT_NE(message.find(*regex_error("(")), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace sortie::runner
