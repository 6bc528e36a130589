#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sortie/sha256.hpp>

namespace sortie {
namespace {

std::string digest(const std::string& text) {
  Sha256 hash;
  hash.update(text);
  return hash.hex_digest();
}

TEST(Sha256Test, KnownVectors) {
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

TEST(Sha256Test, FileDigestIsTheContentsDigestAndNamesAnUnreadableFile) {
  const std::string path = std::string(SORTIE_TEST_BINARY_DIR) + "/sha256_test_file";
  std::ofstream(path) << "abc";
  EXPECT_EQ(file_sha256(path),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::remove(path.c_str());
  try {
    file_sha256(path);
    FAIL() << "a missing file was hashed";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace sortie
