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

int64_t mtime_ns(const struct stat& info) {
  return static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
}

// The clock the kernel stamps files with: a file whose mtime is before it cannot change later
// without its mtime changing too, so its digest may be cached.
int64_t file_clock_now_ns() {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

std::string cache_path(const std::string& dir) { return dir + "/digest-cache"; }

}  // namespace

std::string copy_file_content(const std::string& from, const std::string& to, bool digest) {
  const Fd source(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (source.get() < 0) fail("read", from);
  const Fd target(::open(to.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (target.get() < 0) fail("create", to);
  const bool cloned = ::ioctl(target.get(), FICLONE, source.get()) == 0;
  if (cloned && !digest) return "";
  // A clone is hashed from the copy (which no one else can change); otherwise one pass reads the
  // source, writes the copy and hashes what it wrote.
  const int read_from = cloned ? target.get() : source.get();
  Sha256 sha;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(read_from, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read", from);
    if (n == 0) break;
    if (digest) sha.update(std::string_view(buffer.data(), static_cast<size_t>(n)));
    for (ssize_t written = 0; !cloned && written < n;) {
      const ssize_t w =
          ::write(target.get(), buffer.data() + written, static_cast<size_t>(n - written));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail("write", to);
      written += w;
    }
  }
  return digest ? sha.hex_digest() : "";
}

BlobStore::BlobStore(std::string dir) : dir_(std::move(dir)) {
  std::ifstream in(cache_path(dir_));
  uint64_t device = 0, inode = 0;
  int64_t size = 0, mtime = 0;
  std::string digest;
  while (in >> device >> inode >> size >> mtime >> digest) {
    digests_[{device, inode, size, mtime}] = digest;
  }
}

std::string BlobStore::blob_path(const std::string& digest, bool executable) const {
  // Mode is part of a hard-linked file, so an executable copy is a blob of its own.
  return dir_ + "/" + digest.substr(0, 2) + "/" + digest + (executable ? ".x" : "");
}

Blob BlobStore::add(const std::string& path, const struct stat& info) {
  const bool executable = (info.st_mode & 0111) != 0;
  const FileKey key{info.st_dev, info.st_ino, info.st_size, mtime_ns(info)};
  if (const auto known = digests_.find(key); known != digests_.end()) {
    std::string blob = blob_path(known->second, executable);
    if (::access(blob.c_str(), F_OK) == 0) return {known->second, std::move(blob)};
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
  if (::chmod(temporary.c_str(), executable ? 0555 : 0444) != 0) fail("make read-only", temporary);
  std::string blob = blob_path(digest, executable);
  fs::create_directories(fs::path(blob).parent_path(), error);
  if (::access(blob.c_str(), F_OK) == 0) {
    ::unlink(temporary.c_str());
  } else if (::rename(temporary.c_str(), blob.c_str()) != 0) {
    fail("store", blob);
  }
  if (std::get<3>(key) < read_started) digests_[key] = digest;
  return {digest, std::move(blob)};
}

void BlobStore::save_cache() const {
  // Written aside and renamed: a snapshot taken at the same time reads the old cache or the new.
  const std::string temporary = cache_path(dir_) + ".tmp-" + std::to_string(::getpid());
  std::error_code error;
  fs::create_directories(dir_, error);  // a snapshot of no file made no blob yet
  {
    std::ofstream out(temporary, std::ios::trunc);
    for (const auto& [key, digest] : digests_) {
      out << std::get<0>(key) << ' ' << std::get<1>(key) << ' ' << std::get<2>(key) << ' '
          << std::get<3>(key) << ' ' << digest << '\n';
    }
    if (!out) fail("write", temporary);
  }
  if (::rename(temporary.c_str(), cache_path(dir_).c_str()) != 0) fail("write", cache_path(dir_));
}

}  // namespace sortie::xm::detail
