// A content-addressed store of read-only file copies (blobs named by the SHA-256 of their
// content), behind working-directory snapshots. A cache maps (device, inode, size, mtime) to the
// digest, so a file unchanged since an earlier snapshot is linked again without being read.
#ifndef SORTIE_XM_BLOB_STORE_HPP
#define SORTIE_XM_BLOB_STORE_HPP

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

struct Blob {
  std::string digest;  // 64 hex digits
  std::string path;    // read-only; never changes while it exists
};

class BlobStore {
 public:
  explicit BlobStore(std::string dir);  // reads the digest cache there, if any

  // The blob of `path`'s content (`info`: its lstat), copied in (reflinked where the file system
  // can) unless the cache knows the file or a blob of that content is already there.
  Blob add(const std::string& path, const struct stat& info);
  // Writes the digest cache back, for the next snapshot.
  void save_cache() const;

  int64_t files_read() const { return files_read_; }
  int64_t bytes_read() const { return bytes_read_; }

 private:
  using FileKey = std::tuple<uint64_t, uint64_t, int64_t, int64_t>;  // dev, inode, size, mtime
  std::string blob_path(const std::string& digest, bool executable) const;
  // Copies `path` into a temporary blob and returns its digest.
  std::string copy_in(const std::string& path, const std::string& temporary);

  std::string dir_;
  std::map<FileKey, std::string> digests_;
  int64_t files_read_ = 0;
  int64_t bytes_read_ = 0;
};

// Puts a copy of `from` at `to` (a reflink where the file system allows one), and returns the
// SHA-256 of what it copied when `digest` is set. Throws FAILED_PRECONDITION naming the files.
std::string copy_file_content(const std::string& from, const std::string& to, bool digest);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_BLOB_STORE_HPP
