// File: sortie/sha256.hpp
//
// SHA-256 (FIPS 180-4) for plugins that identify content by digest (packagers, image builds).
// Small and dependency free so a plugin links no crypto library; link Sortie::digest.
#ifndef SORTIE_SHA256_HPP
#define SORTIE_SHA256_HPP

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sortie {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  // The digest as 64 lower-case hex digits. Call once.
  std::string hex_digest();

 private:
  void block(const unsigned char* data);

  std::array<uint32_t, 8> state_;
  unsigned char buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes
};

// "sha256:<hex>" of a file's content; throws sortie::Error (FAILED_PRECONDITION) naming the
// file when it cannot be read.
std::string file_sha256(const std::string& path);

}  // namespace sortie

#endif  // SORTIE_SHA256_HPP
