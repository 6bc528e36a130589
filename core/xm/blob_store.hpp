// A content-addressed store of read-only file copies (blobs named by the SHA-256 of their
// content and their read-only mode), behind working-directory snapshots. Two indexes make it
// fast and keep it honest:
// - the digest cache maps a source file's (device, inode, size, mtime, ctime) to its digest, so a
//   file unchanged since an earlier snapshot is linked again without being read; an entry is only
//   kept for a file whose mtime and ctime are older than the read (git's "racy clean" rule), so a
//   write in the same clock tick, or one that puts the mtime back (cp -p, touch -d), is read again;
// - the blob index records each blob's size, mtime and ctime as sortie left them, so a blob that
//   changed since (a root process writing through a hard link) is hashed again before it is
//   linked, and set aside in corrupt/ when its content no longer matches its name.
#ifndef SORTIE_XM_BLOB_STORE_HPP
#define SORTIE_XM_BLOB_STORE_HPP

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

struct Blob {
  std::string digest;  // 64 hex digits
  std::string path;    // read-only; never changes while it exists
};

// What a check of the store found (`sortie experiments verify`).
struct BlobCheck {
  int64_t blobs = 0;
  int64_t bytes = 0;
  std::vector<std::string> corrupt;  // moved to corrupt/: their content did not match their name
};

class BlobStore {
 public:
  explicit BlobStore(std::string dir);  // reads the digest cache and the blob index there, if any

  // The blob of `path`'s content (`info`: its lstat), copied in (reflinked where the file system
  // can) unless the cache knows the file or a blob of that content is already there. The blob
  // keeps the file's read and execute bits; the write bits are dropped.
  Blob add(const std::string& path, const struct stat& info);
  // Records the blob as it is after `to` was linked to it (a link changes its ctime).
  void linked(const Blob& blob);
  // Writes the digest cache and the blob index back, for the next snapshot.
  void save() const;
  // Hashes every blob, moving those whose content does not match their name to corrupt/.
  BlobCheck check_all();
  // The blobs add() found changed and moved to corrupt/ (then made again from the source).
  const std::vector<std::string>& set_aside() const { return set_aside_; }

  int64_t files_read() const { return files_read_; }
  int64_t bytes_read() const { return bytes_read_; }

 private:
  // dev, inode, size, mtime, ctime
  using FileKey = std::tuple<uint64_t, uint64_t, int64_t, int64_t, int64_t>;
  // size, mtime, ctime of a blob as sortie left it
  using BlobStamp = std::tuple<int64_t, int64_t, int64_t>;
  std::string blob_path(const std::string& digest, mode_t mode) const;
  // Whether the blob at `path` (named `digest`) is whole: its stamp is the one recorded, or its
  // content hashes to its name. A blob that fails is moved aside and false returned.
  bool intact(const std::string& path, const std::string& digest);
  void set_aside(const std::string& path);
  void stamp(const std::string& path);

  std::string dir_;
  std::map<FileKey, std::string> digests_;
  std::map<std::string, BlobStamp> stamps_;  // by blob path relative to dir_
  std::vector<std::string> set_aside_;
  int64_t files_read_ = 0;
  int64_t bytes_read_ = 0;
};

// Puts a copy of `from` at `to` (a reflink where the file system allows one), and returns the
// SHA-256 of what it copied when `digest` is set. Throws FAILED_PRECONDITION naming the files.
std::string copy_file_content(const std::string& from, const std::string& to, bool digest);

// The SHA-256 (hex) of the file at `path`; throws FAILED_PRECONDITION naming it.
std::string file_digest(const std::string& path);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_BLOB_STORE_HPP
