#include "tar_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace sortie::docker {
namespace {

constexpr size_t kBlock = 512;

// Zero-padded octal digits filling width - 1 bytes, then NUL (values that do not fit are cut).
void octal(char* field, size_t width, uint64_t value) {
  for (size_t i = width - 1; i > 0; --i) {
    field[i - 1] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
  field[width - 1] = '\0';
}

}  // namespace

void TarWriter::pad() { data_.append((kBlock - data_.size() % kBlock) % kBlock, '\0'); }

void TarWriter::long_name(char type, std::string_view name) {
  header("././@LongLink", type, 0644, name.size() + 1, 0, "");
  data_.append(name);
  data_.push_back('\0');
  pad();
}

void TarWriter::header(std::string_view name, char type, uint32_t mode, uint64_t size,
                       int64_t mtime, std::string_view link) {
  if (name.size() > 100) long_name('L', name);
  if (link.size() > 100) long_name('K', link);
  char block[kBlock] = {};
  std::memcpy(block, name.data(), std::min<size_t>(name.size(), 100));
  octal(block + 100, 8, mode & 07777);
  octal(block + 108, 8, 0);  // uid
  octal(block + 116, 8, 0);  // gid
  octal(block + 124, 12, size);
  octal(block + 136, 12, static_cast<uint64_t>(mtime < 0 ? 0 : mtime));
  std::memset(block + 148, ' ', 8);
  block[156] = type;
  std::memcpy(block + 157, link.data(), std::min<size_t>(link.size(), 100));
  std::memcpy(block + 257, "ustar", 6);
  std::memcpy(block + 263, "00", 2);
  unsigned checksum = 0;
  for (const char c : block) checksum += static_cast<unsigned char>(c);
  std::snprintf(block + 148, 8, "%06o", checksum);
  data_.append(block, kBlock);
}

void TarWriter::add_directory(std::string_view name, uint32_t mode, int64_t mtime) {
  std::string with_slash(name);
  if (with_slash.empty() || with_slash.back() != '/') with_slash.push_back('/');
  header(with_slash, '5', mode, 0, mtime, "");
}

void TarWriter::add_file(std::string_view name, uint32_t mode, int64_t mtime,
                         std::string_view content) {
  header(name, '0', mode, content.size(), mtime, "");
  data_.append(content);
  pad();
}

void TarWriter::add_symlink(std::string_view name, std::string_view target, int64_t mtime) {
  header(name, '2', 0777, 0, mtime, target);
}

std::string TarWriter::finish() {
  data_.append(2 * kBlock, '\0');
  return std::move(data_);
}

}  // namespace sortie::docker
