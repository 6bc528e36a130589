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
#include <thread>

#include "code_record.hpp"

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
  // Lets the kernel's coarse file clock pass the last write, so that the racy-clean rule lets
  // the digests of files written so far be cached (only files older than the read may be).
  static void wait_for_the_file_clock() {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
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
  wait_for_the_file_clock();
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
  wait_for_the_file_clock();
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

TEST_F(WorkdirSnapshotTest, ARewriteThatKeepsSizeAndMtimeIsReadAgain) {
  // cp -p, rsync -t, tar, touch -d: same size, same mtime, other content. Only the ctime tells.
  write("cfg.txt", "lr=0.1\n");
  const auto past = fs::file_time_type::clock::now() - std::chrono::seconds(10);
  fs::last_write_time(launch_dir_ + "/cfg.txt", past);
  wait_for_the_file_clock();
  EXPECT_EQ(take_workdir_snapshot(1, launch_dir_).files_read, 1);
  EXPECT_EQ(take_workdir_snapshot(2, launch_dir_).files_read, 0);  // cached
  std::ofstream(launch_dir_ + "/cfg.txt", std::ios::in | std::ios::out) << "lr=0.9\n";
  fs::last_write_time(launch_dir_ + "/cfg.txt", past);
  const WorkdirSnapshot rewritten = take_workdir_snapshot(3, launch_dir_);
  EXPECT_EQ(rewritten.files_read, 1);
  EXPECT_EQ(read_text(rewritten.root + "/cfg.txt"), "lr=0.9\n");
}

TEST_F(WorkdirSnapshotTest, AWriteThroughASnapshotNeverReachesALaterOne) {
  // A unit running as root appends to its working directory's file: mode 0444 stops no root
  // process, and the file is a hard link to the stored blob. The schedulers make the tree
  // read-only to units (tested in cli_workdir_snapshot_test); the store must not trust its blobs
  // anyway.
  write("cfg.txt", "lr=0.1\n");
  const auto past = fs::file_time_type::clock::now() - std::chrono::seconds(10);
  fs::last_write_time(launch_dir_ + "/cfg.txt", past);
  wait_for_the_file_clock();
  const WorkdirSnapshot first = take_workdir_snapshot(1, launch_dir_);
  const std::string written = first.root + "/cfg.txt";
  if (::geteuid() != 0) ::chmod(written.c_str(), 0644);  // what root needs not do
  std::ofstream(written, std::ios::app) << "lr=666\n";
  ASSERT_EQ(read_text(written), "lr=0.1\nlr=666\n");

  const SnapshotVerification found = verify_workdir_snapshots(1);
  EXPECT_EQ(found.changed_files, std::vector<std::string>{"cfg.txt"});
  EXPECT_EQ(found.corrupt_blobs.size(), 1u);

  // Whether or not anyone verified: the later experiment gets the launch directory's content.
  std::ofstream(written, std::ios::app) << "lr=667\n";
  const WorkdirSnapshot later = take_workdir_snapshot(2, launch_dir_);
  EXPECT_EQ(read_text(later.root + "/cfg.txt"), "lr=0.1\n");
  EXPECT_EQ(later.digest, first.digest);
  EXPECT_TRUE(verify_workdir_snapshots(2).changed_files.empty());
  EXPECT_TRUE(verify_workdir_snapshots(std::nullopt).corrupt_blobs.empty());
}

TEST_F(WorkdirSnapshotTest, AStoreBlobChangedInPlaceIsSetAsideNotLinked) {
  write("cfg.txt", "lr=0.1\n");
  const WorkdirSnapshot first = take_workdir_snapshot(1, launch_dir_);
  // Changed behind the store's back, content and stamp: the blob no longer matches its name.
  const std::string written = first.root + "/cfg.txt";
  if (::geteuid() != 0) ::chmod(written.c_str(), 0644);
  std::ofstream(written, std::ios::in | std::ios::out) << "lr=0.7\n";
  const WorkdirSnapshot later = take_workdir_snapshot(2, launch_dir_);
  EXPECT_EQ(read_text(later.root + "/cfg.txt"), "lr=0.1\n");
  ASSERT_EQ(later.warnings.size(), 1u);
  EXPECT_NE(later.warnings[0].find("set aside"), std::string::npos) << later.warnings[0];
  EXPECT_TRUE(fs::exists(root_ + "/snapshots/blobs/corrupt"));
}

TEST_F(WorkdirSnapshotTest, ModesAreKeptAndTheStoreIsItsOwnersOnly) {
  write("train.py", "print(1)\n");
  write(".env", "HF_TOKEN=secret\n");
  ::chmod((launch_dir_ + "/.env").c_str(), 0600);
  ::chmod((launch_dir_ + "/train.py").c_str(), 0750);
  const WorkdirSnapshot snapshot = take_workdir_snapshot(1, launch_dir_);
  struct stat info {};
  ASSERT_EQ(::stat((snapshot.root + "/.env").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0400u);
  ASSERT_EQ(::stat((snapshot.root + "/train.py").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0550u);
  for (const char* dir : {"/snapshots/blobs", "/snapshots/experiments"}) {
    ASSERT_EQ(::stat((root_ + dir).c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u) << dir;
  }
  if (::geteuid() != 0) GTEST_SKIP() << "reading as another user needs root";
  // As another user, with the scratch directory opened to everyone as a shared file system is.
  ::chmod(root_.c_str(), 0755);
  ::chmod((root_ + "/snapshots").c_str(), 0755);
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups cat ";
  EXPECT_NE(std::system((as_nobody + snapshot.root + "/.env >/dev/null 2>&1").c_str()), 0);
  EXPECT_NE(std::system((as_nobody + snapshot.root + "/train.py >/dev/null 2>&1").c_str()), 0);
}

TEST_F(WorkdirSnapshotTest, ALinkThatLeavesTheLaunchDirectoryIsResolved) {
  fs::create_directories(root_ + "/data");
  std::ofstream(root_ + "/data/train.csv") << "1,2\n";
  write("lib/util.py", "x = 1\n");
  fs::create_directory_symlink("../data", launch_dir_ + "/data");
  fs::create_symlink("lib/util.py", launch_dir_ + "/util.py");
  const WorkdirSnapshot snapshot = take_workdir_snapshot(1, launch_dir_);
  EXPECT_EQ(fs::read_symlink(snapshot.root + "/data"), fs::path(root_ + "/data"));
  EXPECT_EQ(read_text(snapshot.root + "/data/train.csv"), "1,2\n");
  EXPECT_EQ(fs::read_symlink(snapshot.root + "/util.py"), fs::path("lib/util.py"));  // inside
}

TEST_F(WorkdirSnapshotTest, ASortieignoreThatIsNoRegularFileIsRefusedAtOnce) {
  write("train.py", "print(1)\n");
  ASSERT_EQ(::mkfifo((launch_dir_ + "/.sortieignore").c_str(), 0600), 0);
  try {
    take_workdir_snapshot(1, launch_dir_);
    FAIL() << "a FIFO was read as .sortieignore";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("FIFO"), std::string::npos) << error.what();
  }
}

TEST_F(WorkdirSnapshotTest, NoFilterOfTheRepositorysConfigRuns) {
  git("init -q");
  const std::string mark = root_ + "/filter-ran";
  git("config filter.evil.clean 'touch " + mark + "; cat'");
  git("config filter.evil.smudge cat");
  write(".gitattributes", "*.txt filter=evil\n");
  write("cfg.txt", "lr=0.1\n");
  git("add .");
  git("-c user.email=a@b -c user.name=a commit -qm first");
  fs::remove(mark);
  write("cfg.txt", "lr=0.2\n");
  const WorkdirSnapshot snapshot = take_workdir_snapshot(1, launch_dir_);
  EXPECT_EQ(read_text(snapshot.root + "/cfg.txt"), "lr=0.2\n");
  // The code record's diff compares the work tree with HEAD, where git runs clean filters.
  const std::string record = detail::code_record_json(launch_dir_, "");
  EXPECT_NE(record.find("+lr=0.2"), std::string::npos) << record;
  EXPECT_FALSE(fs::exists(mark));
}

TEST_F(WorkdirSnapshotTest, ARepositoryOfAnotherUserIsNamedAndItsGitignoreHonoured) {
  if (::geteuid() != 0) GTEST_SKIP() << "a repository of another user needs root to make";
  git("init -q");
  write(".gitignore", "secret.txt\n");
  write("train.py", "print(1)\n");
  write("secret.txt", "password\n");
  ASSERT_EQ(std::system(("chown -R 65534:65534 " + launch_dir_).c_str()), 0);
  const WorkdirSnapshot snapshot = take_workdir_snapshot(1, launch_dir_);
  EXPECT_EQ(snapshot.rules, "git");
  EXPECT_TRUE(fs::exists(snapshot.root + "/train.py"));
  EXPECT_FALSE(fs::exists(snapshot.root + "/secret.txt"));
  ASSERT_EQ(snapshot.warnings.size(), 1u);
  EXPECT_NE(snapshot.warnings[0].find("safe.directory"), std::string::npos) << snapshot.warnings[0];
}

}  // namespace
}  // namespace sortie::xm
