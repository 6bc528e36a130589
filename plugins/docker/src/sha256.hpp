// SHA-256 (FIPS 180-4), for the content hash that tags workspace images. Small and dependency
// free so the plugin links no crypto library.
#ifndef SORTIE_DOCKER_SHA256_HPP
#define SORTIE_DOCKER_SHA256_HPP

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sortie::docker {

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

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_SHA256_HPP
