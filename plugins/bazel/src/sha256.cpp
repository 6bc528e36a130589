#include "sha256.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sortie/plugin.hpp>

namespace sortie::bazel {
namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

DigestContext start_digest() {
  DigestContext context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    throw Error(Code::kInternal, "OpenSSL could not start a SHA-256 digest");
  }
  return context;
}

std::string finish_hex(const DigestContext& context) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace

std::string sha256_hex(std::string_view text) {
  const DigestContext context = start_digest();
  EVP_DigestUpdate(context.get(), text.data(), text.size());
  return finish_hex(context);
}

std::string file_digest(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(Code::kFailedPrecondition,
                "cannot read " + path + " to hash it: " + std::strerror(errno));
  }
  const DigestContext context = start_digest();
  std::string buffer(1 << 20, '\0');
  while (file) {
    file.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<size_t>(file.gcount()));
  }
  if (file.bad()) throw Error(Code::kFailedPrecondition, "error while reading " + path);
  return "sha256:" + finish_hex(context);
}

}  // namespace sortie::bazel
