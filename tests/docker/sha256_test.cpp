#include "sha256.hpp"

#include <gtest/gtest.h>

namespace sortie::docker {
namespace {

std::string digest(const std::string& text) {
  Sha256 hash;
  hash.update(text);
  return hash.hex_digest();
}

TEST(DockerSha256, KnownVectors) {
  EXPECT_EQ(digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 pieces;
  const std::string million(1000000, 'a');
  for (size_t i = 0; i < million.size(); i += 999) pieces.update(million.substr(i, 999));
  EXPECT_EQ(pieces.hex_digest(),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace sortie::docker
