// Working-directory snapshots (sortie/xm/workdir_snapshot.hpp) on real files: what is kept and
// left out, that neither the source nor another snapshot can change what a snapshot holds, and
// that an unchanged file is linked again without being read.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sortie/error.hpp>
#include <sortie/xm/workdir_snapshot.hpp>
#include <sstream>
#include <string>

namespace sortie::xm {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class WorkdirSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char scratch[] = "/tmp/sortie-snapshot-test-XXXXXX";
    root_ = ::mkdtemp(scratch);
    launch_dir_ = root_ + "/launch";
    fs::create_directories(launch_dir_);
    ::setenv("SORTIE_SNAPSHOT_DIR", (root_ + "/snapshots").c_str(), 1);
    ::setenv("SORTIE_STATE_DIR", (root_ + "/state").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("SORTIE_SNAPSHOT_DIR");
    ::unsetenv("SORTIE_LIMIT_WORKDIR_SNAPSHOT_BYTES");
    // Snapshot files are read-only; their directories are not, so removal works.
    fs::remove_all(root_);
  }
  void write(const std::string& relative, const std::string& text) const {
    const fs::path path = fs::path(launch_dir_) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  void git(const std::string& args) const {
    ASSERT_EQ(std::system(("git -C " + launch_dir_ + " " + args + " >/dev/null 2>&1").c_str()), 0)
        << args;
  }
  std::string root_;
  std::string launch_dir_;
};

TEST_F(WorkdirSnapshotTest, EditsAfterTheSnapshotReachNeitherItNorTheSource) {
  write("config.txt", "old\n");
  const WorkdirSnapshot snapshot = take_workdir_snapshot(1, launch_dir_);
  EXPECT_EQ(snapshot.root, root_ + "/snapshots/experiments/1/tree");
  EXPECT_EQ(read_text(snapshot.root + "/config.txt"), "old\n");

  // In place, as an editor that rewrites the file does: the snapshot's copy is not the file.
  std::ofstream(launch_dir_ + "/config.txt", std::ios::in | std::ios::out) << "new";
  EXPECT_EQ(read_text(snapshot.root + "/config.txt"), "old\n");
  // And the snapshot's copy is read-only, so a unit cannot change what the other units read.
  struct stat info {};
  ASSERT_EQ(::stat((snapshot.root + "/config.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0222, 0u);
}

TEST_F(WorkdirSnapshotTest, InAGitWorkTreeWhatGitignoreExcludesIsLeftOut) {
  git("init -q");
  write(".gitignore", "secret.txt\nbuild/\n");
  write("train.py", "print(1)\n");
  write("secret.txt", "password\n");
  write("build/out.o", "binary\n");
  write("data/untracked.csv", "1,2\n");
  git("add train.py .gitignore");
  const WorkdirSnapshot snapshot = take_workdir_snapshot(1, launch_dir_);
  EXPECT_EQ(snapshot.rules, "git");
  EXPECT_TRUE(fs::exists(snapshot.root + "/train.py"));
  EXPECT_TRUE(fs::exists(snapshot.root + "/data/untracked.csv"));  // untracked, not ignored
  EXPECT_FALSE(fs::exists(snapshot.root + "/secret.txt"));
  EXPECT_FALSE(fs::exists(snapshot.root + "/build"));
  EXPECT_FALSE(fs::exists(snapshot.root + "/.git"));
}

TEST_F(WorkdirSnapshotTest, OutsideGitTheDefaultsAndSortieignoreAreLeftOut) {
  write("train.py", "print(1)\n");
  write("__pycache__/train.cpython-311.pyc", "x");
  write("node_modules/left-pad/index.js", "x");
  write("logs/run1.txt", "x");
  write("data/big.bin", "x");
  write("data/keep.txt", "x");
  write(".sortieignore", "# outputs\nlogs/\n/data/*.bin\n");
  const WorkdirSnapshot snapshot = take_workdir_snapshot(1, launch_dir_);
  EXPECT_EQ(snapshot.rules, "default");
  EXPECT_TRUE(fs::exists(snapshot.root + "/train.py"));
  EXPECT_TRUE(fs::exists(snapshot.root + "/data/keep.txt"));
  EXPECT_FALSE(fs::exists(snapshot.root + "/__pycache__"));
  EXPECT_FALSE(fs::exists(snapshot.root + "/node_modules"));
  EXPECT_FALSE(fs::exists(snapshot.root + "/logs"));
  EXPECT_FALSE(fs::exists(snapshot.root + "/data/big.bin"));
}

TEST_F(WorkdirSnapshotTest, ASortieignorePatternItCannotHonourIsRefusedByLine) {
  write(".sortieignore", "logs/\n!logs/keep.txt\n");
  try {
    take_workdir_snapshot(1, launch_dir_);
    FAIL() << "a negated pattern was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find(".sortieignore:2"), std::string::npos) << error.what();
  }
}

TEST_F(WorkdirSnapshotTest, ASecondSnapshotOfUnchangedFilesReadsNothingAndSharesBlobs) {
  write("a.txt", "alpha\n");
  write("lib/b.py", "beta\n");
  // Older than the file clock's tick, so the digests may be cached.
  const auto past = fs::file_time_type::clock::now() - std::chrono::seconds(10);
  fs::last_write_time(launch_dir_ + "/a.txt", past);
  fs::last_write_time(launch_dir_ + "/lib/b.py", past);
  const WorkdirSnapshot first = take_workdir_snapshot(1, launch_dir_);
  EXPECT_EQ(first.files_read, 2);
  const WorkdirSnapshot second = take_workdir_snapshot(2, launch_dir_);
  EXPECT_EQ(second.files_read, 0);
  EXPECT_EQ(second.bytes_read, 0);
  EXPECT_EQ(second.digest, first.digest);
  struct stat one {
  }, two{};
  ASSERT_EQ(::stat((first.root + "/a.txt").c_str(), &one), 0);
  ASSERT_EQ(::stat((second.root + "/a.txt").c_str(), &two), 0);
  EXPECT_EQ(one.st_ino, two.st_ino);  // one blob, linked into both

  // A changed file is read again, and only it; the digest of the snapshot changes.
  write("a.txt", "alpha 2\n");
  fs::last_write_time(launch_dir_ + "/a.txt", past - std::chrono::seconds(5));
  const WorkdirSnapshot third = take_workdir_snapshot(3, launch_dir_);
  EXPECT_EQ(third.files_read, 1);
  EXPECT_NE(third.digest, first.digest);
}

TEST_F(WorkdirSnapshotTest, TheManifestReadsBackAsTaken) {
  write("a.txt", "alpha\n");
  const WorkdirSnapshot taken = take_workdir_snapshot(7, launch_dir_);
  const std::optional<WorkdirSnapshot> read = read_workdir_snapshot(7);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->root, taken.root);
  EXPECT_EQ(read->digest, taken.digest);
  EXPECT_EQ(read->launch_dir, launch_dir_);
  EXPECT_EQ(read->files, 1);
  EXPECT_EQ(read->bytes, 6);
  EXPECT_FALSE(read_workdir_snapshot(8).has_value());
}

TEST_F(WorkdirSnapshotTest, PastTheSizeLimitItIsRefusedNamingTheBiggestFiles) {
  write("small.txt", "x");
  write("weights.bin", std::string(4096, 'w'));
  ::setenv("SORTIE_LIMIT_WORKDIR_SNAPSHOT_BYTES", "1000", 1);
  try {
    take_workdir_snapshot(1, launch_dir_);
    FAIL() << "a snapshot past the limit was taken";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kResourceExhausted);
    const std::string message = error.what();
    EXPECT_NE(message.find("weights.bin (4096 bytes)"), std::string::npos) << message;
    EXPECT_NE(message.find("SORTIE_LIMIT_WORKDIR_SNAPSHOT_BYTES"), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(root_ + "/snapshots/experiments/1"));
}

}  // namespace
}  // namespace sortie::xm
