// The build context packer without an Engine: file hashes remembered by lstat identity spare
// reading unchanged files, and the archive made later refuses a file whose content changed since
// it was hashed (the image would not hold what its name says), but not one only touched.
#include "context_packer.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <chrono>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sortie/sha256.hpp>
#include <thread>

#include "temp_dir.hpp"

namespace sortie::docker {
namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string sha256(const std::string& text) {
  Sha256 hash;
  hash.update(text);
  return hash.hex_digest();
}

struct stat lstat_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info;
}

// The identity FileHashes keeps: "<dev> <ino> <size> <mtime ns> <ctime ns>".
std::string identity(const struct stat& info) {
  const auto ns = [](const timespec& time) {
    return std::to_string(static_cast<int64_t>(time.tv_sec) * 1000000000 + time.tv_nsec);
  };
  return std::to_string(info.st_dev) + " " + std::to_string(info.st_ino) + " " +
         std::to_string(info.st_size) + " " + ns(info.st_mtim) + " " + ns(info.st_ctim);
}

TEST(DockerFileHashes, AnUnchangedFileIsNotReadAgainAndAChangedOneIs) {
  testing::TempDir dir;
  const std::string file = dir.path() + "/train.py", store = dir.path() + "/hashes";
  write(file, "print(1)\n");
  // A remembered hash that is not the content's: only a lookup can answer it.
  const std::string remembered(64, 'a');
  write(store, remembered + " " + identity(lstat_of(file)) + " " + file + "\n");
  FileHashes hashes(store);
  EXPECT_EQ(hashes.of(file, lstat_of(file)), remembered);

  write(file, "print(2)\n");
  FileHashes after_change(store);
  EXPECT_EQ(after_change.of(file, lstat_of(file)), sha256("print(2)\n"));
}

TEST(DockerFileHashes, SaveKeepsSettledFilesAndDropsRecentAndGoneOnes) {
  testing::TempDir dir;
  const std::string settled = dir.path() + "/settled", recent = dir.path() + "/recent";
  const std::string store = dir.path() + "/hashes";
  write(settled, "old\n");
  write(store, std::string(64, 'b') + " 1 2 3 4 5 " + dir.path() + "/gone\n");
  // Older than the 2 s in which a second write could leave the identity as it is (whole seconds).
  std::this_thread::sleep_for(std::chrono::milliseconds(3100));
  write(recent, "new\n");
  {
    FileHashes hashes(store);
    hashes.of(settled, lstat_of(settled));
    hashes.of(recent, lstat_of(recent));
    hashes.save();
  }
  std::ifstream in(store);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(saved.find(sha256("old\n") + " " + identity(lstat_of(settled)) + " " + settled),
            std::string::npos)
      << saved;
  EXPECT_EQ(saved.find(recent), std::string::npos) << saved;
  EXPECT_EQ(saved.find("/gone"), std::string::npos) << saved;
}

TEST(DockerContextPacker, TheArchiveRefusesAFileChangedSinceItWasHashed) {
  testing::TempDir dir;
  write(dir.path() + "/a.txt", "one\n");
  write(dir.path() + "/b.txt", "two\n");
  ContextPacker touched;
  touched.add_tree(dir.path(), "");
  const timeval later[2] = {{2000000000, 0}, {2000000000, 0}};
  ASSERT_EQ(::utimes((dir.path() + "/a.txt").c_str(), later), 0);
  EXPECT_NE(touched.finish_tar().find("one\n"), std::string::npos) << "a touch is no change";

  ContextPacker changed;
  changed.add_tree(dir.path(), "");
  write(dir.path() + "/b.txt", "three\n");
  try {
    changed.finish_tar();
    FAIL() << "packed a file whose hash is stale";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), Code::kFailedPrecondition);
    EXPECT_NE(std::string(error.what()).find("b.txt' changed while it was being packed"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace sortie::docker
