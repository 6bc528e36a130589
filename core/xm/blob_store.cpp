#include "blob_store.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sortie/model/error.hpp>
#include <sortie/sha256.hpp>
#include <vector>

namespace sortie::xm::detail {
namespace {

namespace fs = std::filesystem;

// Headers of the two index files: a file without its header (an older sortie's) is not read.
constexpr const char* kDigestCacheHeader = "sortie.digest_cache/2";
constexpr const char* kBlobIndexHeader = "sortie.blob_index/1";

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error::failed_precondition("working-directory snapshot: cannot " + what + " " + path +
                                   ": " + std::strerror(errno));
}

int64_t ns(const struct timespec& time) {
  return static_cast<int64_t>(time.tv_sec) * 1000000000 + time.tv_nsec;
}

// The clock the kernel stamps files with: a file whose mtime and ctime are before it cannot
// change later without one of them changing too, so its digest may be cached.
int64_t file_clock_now_ns() {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return ns(now);
}

// Hashes what `fd` reads from where it stands, writing it to `copy_to` too unless that is < 0.
std::string hash_stream(int fd, int copy_to, const std::string& from, const std::string& to) {
  Sha256 sha;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read", from);
    if (n == 0) break;
    sha.update(std::string_view(buffer.data(), static_cast<size_t>(n)));
    for (ssize_t written = 0; copy_to >= 0 && written < n;) {
      const ssize_t w = ::write(copy_to, buffer.data() + written, static_cast<size_t>(n - written));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail("write", to);
      written += w;
    }
  }
  return sha.hex_digest();
}

// Writes `lines` to `path` under `header`, aside and renamed: a snapshot taken at the same time
// reads the old file or the new.
void write_index(const std::string& path, const char* header, const std::string& lines) {
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << header << '\n' << lines;
    if (!out) fail("write", temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail("write", path);
}

// An index file's stream, past its header; closed when the header is not `header`.
std::ifstream open_index(const std::string& path, const char* header) {
  std::ifstream in(path);
  std::string first;
  if (!std::getline(in, first) || first != header) in.close();
  return in;
}

}  // namespace

std::string copy_file_content(const std::string& from, const std::string& to, bool digest) {
  const Fd source(::open(from.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (source.get() < 0) fail("read", from);
  struct stat info {};
  if (::fstat(source.get(), &info) != 0) fail("read", from);
  if (!S_ISREG(info.st_mode)) {
    throw Error::failed_precondition("working-directory snapshot: " + from +
                                     " is no longer a regular file; launch again");
  }
  const Fd target(::open(to.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (target.get() < 0) fail("create", to);
  const bool cloned = ::ioctl(target.get(), FICLONE, source.get()) == 0;
  if (cloned && !digest) return "";
  if (cloned) return hash_stream(target.get(), -1, to, to);  // the copy no one else can change
  const std::string hex = hash_stream(source.get(), target.get(), from, to);
  return digest ? hex : "";
}

std::string file_digest(const std::string& path) {
  const Fd file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (file.get() < 0) fail("read", path);
  return hash_stream(file.get(), -1, path, path);
}

BlobStore::BlobStore(std::string dir) : dir_(std::move(dir)) {
  std::ifstream cache = open_index(dir_ + "/digest-cache", kDigestCacheHeader);
  uint64_t device = 0, inode = 0;
  int64_t size = 0, mtime = 0, ctime = 0;
  std::string name;
  while (cache >> device >> inode >> size >> mtime >> ctime >> name) {
    digests_[{device, inode, size, mtime, ctime}] = name;
  }
  std::ifstream index = open_index(dir_ + "/blob-index", kBlobIndexHeader);
  while (index >> name >> size >> mtime >> ctime) stamps_[name] = {size, mtime, ctime};
}

std::string BlobStore::blob_path(const std::string& digest, mode_t mode) const {
  // Mode is part of a hard-linked file, so each read-only mode is a blob of its own; the two
  // usual ones keep the names earlier stores gave them.
  const mode_t kept = mode & 0555;
  std::string suffix;
  if (kept == 0555) {
    suffix = ".x";
  } else if (kept != 0444) {
    char octal[8];
    std::snprintf(octal, sizeof octal, ".m%04o", static_cast<unsigned>(kept));
    suffix = octal;
  }
  return dir_ + "/" + digest.substr(0, 2) + "/" + digest + suffix;
}

void BlobStore::stamp(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;
  stamps_[path.substr(dir_.size() + 1)] = {info.st_size, ns(info.st_mtim), ns(info.st_ctim)};
}

void BlobStore::set_aside(const std::string& path) {
  const std::string corrupt_dir = dir_ + "/corrupt";
  std::error_code error;
  fs::create_directories(corrupt_dir, error);
  const std::string name = fs::path(path).filename().string();
  const std::string to = corrupt_dir + "/" + name + "-" + std::to_string(file_clock_now_ns());
  if (::rename(path.c_str(), to.c_str()) != 0) fail("set aside the changed blob", path);
  stamps_.erase(path.substr(dir_.size() + 1));
  set_aside_.push_back(to);
}

bool BlobStore::intact(const std::string& path, const std::string& digest) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return false;
  const auto known = stamps_.find(path.substr(dir_.size() + 1));
  if (known != stamps_.end() &&
      known->second == BlobStamp{info.st_size, ns(info.st_mtim), ns(info.st_ctim)}) {
    return true;
  }
  if (S_ISREG(info.st_mode) && file_digest(path) == digest) {
    stamp(path);
    return true;
  }
  set_aside(path);
  return false;
}

Blob BlobStore::add(const std::string& path, const struct stat& info) {
  const FileKey key{info.st_dev, info.st_ino, info.st_size, ns(info.st_mtim), ns(info.st_ctim)};
  if (const auto known = digests_.find(key); known != digests_.end()) {
    std::string blob = blob_path(known->second, info.st_mode);
    if (intact(blob, known->second)) return {known->second, std::move(blob)};
  }
  const std::string temporary_dir = dir_ + "/tmp";
  std::error_code error;
  fs::create_directories(temporary_dir, error);
  const std::string temporary = temporary_dir + "/" + std::to_string(::getpid()) + "-" +
                                std::to_string(files_read_) + "-" +
                                std::to_string(file_clock_now_ns());
  const int64_t read_started = file_clock_now_ns();
  const std::string digest = copy_file_content(path, temporary, true);
  ++files_read_;
  bytes_read_ += info.st_size;
  if (::chmod(temporary.c_str(), info.st_mode & 0555) != 0) fail("make read-only", temporary);
  std::string blob = blob_path(digest, info.st_mode);
  fs::create_directories(fs::path(blob).parent_path(), error);
  // A link, not a rename: a blob another snapshot stored meanwhile (three launches of one new
  // directory at once) is never replaced under the links being made to it, which showed as a
  // link() failing ENOENT.
  if (intact(blob, digest)) {
    ::unlink(temporary.c_str());
  } else if (::link(temporary.c_str(), blob.c_str()) == 0 || errno == EEXIST) {
    ::unlink(temporary.c_str());
    stamp(blob);
  } else {
    fail("store", blob);
  }
  if (std::get<3>(key) < read_started && std::get<4>(key) < read_started) digests_[key] = digest;
  return {digest, std::move(blob)};
}

void BlobStore::linked(const Blob& blob) { stamp(blob.path); }

void BlobStore::save() const {
  std::error_code error;
  fs::create_directories(dir_, error);  // a snapshot of no file made no blob yet
  std::string cache;
  for (const auto& [key, digest] : digests_) {
    cache += std::to_string(std::get<0>(key)) + ' ' + std::to_string(std::get<1>(key)) + ' ' +
             std::to_string(std::get<2>(key)) + ' ' + std::to_string(std::get<3>(key)) + ' ' +
             std::to_string(std::get<4>(key)) + ' ' + digest + '\n';
  }
  write_index(dir_ + "/digest-cache", kDigestCacheHeader, cache);
  std::string index;
  for (const auto& [name, blob_stamp] : stamps_) {
    index += name + ' ' + std::to_string(std::get<0>(blob_stamp)) + ' ' +
             std::to_string(std::get<1>(blob_stamp)) + ' ' +
             std::to_string(std::get<2>(blob_stamp)) + '\n';
  }
  write_index(dir_ + "/blob-index", kBlobIndexHeader, index);
}

BlobCheck BlobStore::check_all() {
  BlobCheck check;
  std::error_code error;
  std::vector<std::pair<std::string, std::string>> blobs;  // path, digest
  for (const auto& shard : fs::directory_iterator(dir_, error)) {
    const std::string shard_name = shard.path().filename().string();
    if (shard_name.size() != 2 || !shard.is_directory()) continue;  // tmp/, corrupt/, indexes
    for (const auto& entry : fs::directory_iterator(shard.path(), error)) {
      const std::string name = entry.path().filename().string();
      blobs.emplace_back(entry.path().string(), name.substr(0, 64));
    }
  }
  for (const auto& [path, digest] : blobs) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) continue;
    ++check.blobs;
    check.bytes += info.st_size;
    if (S_ISREG(info.st_mode) && file_digest(path) == digest) {
      stamp(path);
    } else {
      set_aside(path);
      check.corrupt.push_back(path);
    }
  }
  save();
  return check;
}

}  // namespace sortie::xm::detail
