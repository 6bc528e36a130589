#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sortie/model/config_file.hpp>
#include <sortie/model/error.hpp>
#include <string>
#include <thread>

namespace sortie::model {
namespace {

namespace fs = std::filesystem;

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::path(SORTIE_TEST_BINARY_DIR) /
        ("config_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
    return path.string();
  }

  // ConfigFile::load_default() run from `cwd` with HOME=`home`.
  ConfigFile load_default_from(const fs::path& cwd, const fs::path& home) {
    const fs::path old_cwd = fs::current_path();
    const char* old_home = std::getenv("HOME");
    const std::string saved_home = old_home == nullptr ? "" : old_home;
    ::unsetenv("SORTIE_CONFIG");
    ::unsetenv("TORCHXCONFIG");
    ::setenv("HOME", home.c_str(), 1);
    fs::current_path(cwd);
    ConfigFile config;
    try {
      config = ConfigFile::load_default();
    } catch (...) {
      fs::current_path(old_cwd);
      ::setenv("HOME", saved_home.c_str(), 1);
      throw;
    }
    fs::current_path(old_cwd);
    ::setenv("HOME", saved_home.c_str(), 1);
    return config;
  }

  std::string error_of_load(const std::vector<std::string>& paths) {
    try {
      ConfigFile::load(paths);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "no Error thrown";
    return "";
  }

  fs::path dir_;
};

TEST_F(ConfigFileTest, ReadsSectionsKeysAndTrimmedValues) {
  const std::string path = write("a.ini",
                                 "# comment\n; another\n\n[local_cwd]\n  log_dir =  /tmp/logs  \n"
                                 "prepend_cwd=true\n[cli:run]\nscheduler = local_cwd\n"
                                 "[component:utils.echo]\nmsg = hi = there\nempty =\n");
  const ConfigFile config = ConfigFile::load({path});
  EXPECT_EQ(config.files_read(), std::vector<std::string>{path});
  const auto local = config.section("local_cwd");
  ASSERT_EQ(local.size(), 2u);
  EXPECT_EQ(local.at("log_dir").value, "/tmp/logs");
  EXPECT_EQ(local.at("log_dir").origin, path + ":5");
  EXPECT_EQ(config.get("cli:run", "scheduler")->value, "local_cwd");
  EXPECT_EQ(config.get("component:utils.echo", "msg")->value, "hi = there");
  EXPECT_EQ(config.get("component:utils.echo", "empty")->value, "");
  EXPECT_EQ(config.get("cli:run", "nothing"), std::nullopt);
  EXPECT_EQ(config.get("nosection", "x"), std::nullopt);
  EXPECT_TRUE(config.section("nosection").empty());
}

TEST_F(ConfigFileTest, EarlierFilesWinPerKeyAndMissingFilesAreSkipped) {
  const std::string first = write("first.ini", "[docker]\nimage_repo = first\n");
  const std::string second = write("second.ini", "[docker]\nimage_repo = second\nquiet = true\n");
  const ConfigFile config = ConfigFile::load({first, (dir_ / "missing.ini").string(), second});
  EXPECT_EQ(config.files_read(), (std::vector<std::string>{first, second}));
  EXPECT_EQ(config.get("docker", "image_repo")->value, "first");
  EXPECT_EQ(config.get("docker", "image_repo")->origin, first + ":2");
  EXPECT_EQ(config.get("docker", "quiet")->origin, second + ":3");
}

TEST_F(ConfigFileTest, MalformedLinesNameFileAndLine) {
  const std::string outside = write("outside.ini", "# top\nlog_dir = /x\n");
  EXPECT_EQ(error_of_load({outside}),
            outside +
                ":2: 'log_dir' is outside any section; put it under [SCHEDULER], "
                "[cli:run] or [component:NAME]");
  const std::string no_equals = write("noeq.ini", "[local_cwd]\nlog_dir /x\n");
  EXPECT_EQ(error_of_load({no_equals}),
            no_equals +
                ":2: expected [SECTION], KEY = VALUE or a comment ('#' or ';'), got "
                "'log_dir /x'");
  const std::string bad_header = write("header.ini", "[local_cwd\n");
  EXPECT_EQ(error_of_load({bad_header}), bad_header + ":1: section header '[local_cwd' lacks ']'");
  const std::string empty_header = write("empty.ini", "[ ]\n");
  EXPECT_EQ(error_of_load({empty_header}), empty_header + ":1: empty section name '[]'");
  const std::string no_key = write("nokey.ini", "[a]\n= 3\n");
  EXPECT_EQ(error_of_load({no_key}), no_key + ":2: '= 3' has no key before '='");
  const std::string twice = write("twice.ini", "[a]\nk = 1\n[b]\n[a]\nk = 2\n");
  EXPECT_EQ(error_of_load({twice}), twice + ":5: key 'k' of [a] is already set at " + twice + ":2");
}

TEST_F(ConfigFileTest, LoadDefaultHonoursSortieConfig) {
  const std::string path = write("explicit.ini", "[local_cwd]\nlog_dir = /explicit\n");
  ::setenv("SORTIE_CONFIG", path.c_str(), 1);
  const ConfigFile config = ConfigFile::load_default();
  EXPECT_EQ(config.files_read(), std::vector<std::string>{path});
  EXPECT_EQ(config.get("local_cwd", "log_dir")->value, "/explicit");
  const std::string missing = (dir_ / "missing.ini").string();
  ::setenv("SORTIE_CONFIG", missing.c_str(), 1);
  try {
    ConfigFile::load_default();
    ADD_FAILURE() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), SORTIE_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()), "SORTIE_CONFIG names '" + missing +
                                         "', which does not exist; fix or unset "
                                         "SORTIE_CONFIG");
  }
  ::unsetenv("SORTIE_CONFIG");
}

TEST_F(ConfigFileTest, LoadDefaultReadsCwdThenHome) {
  const std::string cwd = write("work/.sortieconfig", "[local_cwd]\nlog_dir = /cwd\n");
  const std::string home =
      write("home/.sortieconfig", "[local_cwd]\nlog_dir = /home\nprepend_cwd = true\n");
  const ConfigFile config = load_default_from(dir_ / "work", dir_ / "home");
  // The working directory's file is named absolutely, so that errors say which one it is.
  EXPECT_EQ(config.files_read(), (std::vector<std::string>{cwd, home}));
  EXPECT_EQ(config.get("local_cwd", "log_dir")->value, "/cwd");
  EXPECT_EQ(config.get("local_cwd", "prepend_cwd")->value, "true");
}

// Issue 35: TorchX's .torchxconfig is read after the .sortieconfig files, in TorchX's own order
// (~/ before ./), its working-directory file untrusted as a .sortieconfig's is.
TEST_F(ConfigFileTest, LoadDefaultReadsTorchxConfigHomeThenCwdAfterSortieConfig) {
  const std::string sortie = write("work/.sortieconfig", "[local_cwd]\nlog_dir = /sortie\n");
  const std::string torchx_cwd = write("work/.torchxconfig",
                                       "[local_cwd]\nlog_dir = /torchx-cwd\n"
                                       "prepend_cwd = true\ngpu_devices = 0,1\n");
  const std::string torchx_home = write("home/.torchxconfig",
                                        "[local_cwd]\nlog_dir = /torchx-home\n"
                                        "gpu_devices = 2\n");
  const ConfigFile config = load_default_from(dir_ / "work", dir_ / "home");
  EXPECT_EQ(config.files_read(), (std::vector<std::string>{sortie, torchx_home, torchx_cwd}));
  EXPECT_EQ(config.get("local_cwd", "log_dir")->value, "/sortie");
  EXPECT_EQ(config.get("local_cwd", "gpu_devices")->value, "2");
  EXPECT_TRUE(config.get("local_cwd", "gpu_devices")->trusted);
  const auto from_cwd = config.get("local_cwd", "prepend_cwd");
  ASSERT_TRUE(from_cwd.has_value());
  EXPECT_EQ(from_cwd->origin, torchx_cwd + ":3");
  EXPECT_FALSE(from_cwd->trusted);

  // $TORCHXCONFIG replaces both, and is the user's own.
  const std::string chosen = write("chosen.ini", "[local_cwd]\nprepend_cwd = false\n");
  ::setenv("TORCHXCONFIG", chosen.c_str(), 1);
  const fs::path old_cwd = fs::current_path();
  fs::current_path(dir_ / "work");
  const ConfigFile explicit_config = ConfigFile::load_default();
  fs::current_path(old_cwd);
  ::unsetenv("TORCHXCONFIG");
  EXPECT_EQ(explicit_config.get("local_cwd", "prepend_cwd")->value, "false");
  EXPECT_TRUE(explicit_config.get("local_cwd", "prepend_cwd")->trusted);
}

// As configparser reads it: a key may end at ':', and None (what `torchx configure` writes for a
// scheduler's default) leaves the key unset; a .sortieconfig keeps its stricter form.
TEST_F(ConfigFileTest, TorchxConfigIsReadInTorchxsDialect) {
  write("work/.torchxconfig",
        "[local_docker]\ncancel_grace_period: 5\nimage_repo = None\n"
        "[component:dist.ddp]\nj = 1x2\nimage: ghcr.io/foo:1\n");
  const ConfigFile config = load_default_from(dir_ / "work", dir_ / "home");
  EXPECT_EQ(config.get("local_docker", "cancel_grace_period")->value, "5");
  EXPECT_FALSE(config.get("local_docker", "image_repo").has_value());
  EXPECT_EQ(config.get("component:dist.ddp", "j")->value, "1x2");
  EXPECT_EQ(config.get("component:dist.ddp", "image")->value, "ghcr.io/foo:1");

  const std::string sortie = write("colon.ini", "[local_docker]\ncancel_grace_period: 5\n");
  EXPECT_NE(error_of_load({sortie}).find(sortie + ":2: expected [SECTION], KEY = VALUE"),
            std::string::npos);
}

// Issue 26 A2: a FIFO named .sortieconfig made every command wait for ever in open().
TEST_F(ConfigFileTest, OnlyARegularFileIsReadAndAFifoNeverBlocks) {
  const std::string fifo = (dir_ / "fifo.ini").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Should the read block, a writer opened after 3 s releases it, so the test fails, not hangs.
  std::atomic<bool> done = false;
  std::thread watchdog([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!done && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (done) return;
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
  });
  const auto started = std::chrono::steady_clock::now();
  const std::string fifo_error = error_of_load({fifo});
  done = true;
  watchdog.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  EXPECT_EQ(fifo_error, "cannot read config file '" + fifo +
                            "': it is a FIFO, not a regular file; give the path of a file");

  const std::string directory = (dir_ / "dir.ini").string();
  fs::create_directories(directory);
  EXPECT_NE(error_of_load({directory}).find("'" + directory + "': it is a directory"),
            std::string::npos);
  EXPECT_NE(error_of_load({"/dev/zero"}).find("it is a character device"), std::string::npos);
}

TEST_F(ConfigFileTest, SectionsNothingReadsAreErrorsNamingTheFirstHeader) {
  const std::string first = write("first.ini", "[cli:run]\nscheduler = local_cwd\n\n[lokal_cwd]\n");
  const std::string second = write("second.ini", "[lokal_cwd]\nlog_dir = /x\n");
  const ConfigFile config = ConfigFile::load({first, second});
  const std::vector<std::string> known = {"cli:run", "local_cwd", "component:utils.echo"};
  try {
    config.check_sections(known);
    ADD_FAILURE() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), SORTIE_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()),
              first +
                  ":4: no section [lokal_cwd] is read (did you mean 'local_cwd'?); sections: "
                  "[cli:run], [SCHEDULER] for a scheduler's run options, [component:NAME] for a "
                  "component's parameters");
  }
  EXPECT_NO_THROW(ConfigFile::load({first}).check_keys("cli:run", {"scheduler"}, "keys"));
}

TEST_F(ConfigFileTest, KeysNothingReadsAreErrorsNamingTheirLine) {
  const std::string path = write("a.ini", "[cli:run]\nschedular = local_cwd\n");
  const ConfigFile config = ConfigFile::load({path});
  EXPECT_NO_THROW(config.check_keys("absent", {}, "keys"));
  try {
    config.check_keys("cli:run", {"scheduler"}, "defaults of `sortie run` options");
    ADD_FAILURE() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ":2: [cli:run] has no key 'schedular' (did you mean 'scheduler'?); its keys "
                  "are the defaults of `sortie run` options: 'scheduler'");
  }
}

}  // namespace
}  // namespace sortie::model
