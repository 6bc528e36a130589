// SHA-256 (OpenSSL) for the digests of built files and the names of state files.
#ifndef SORTIE_BAZEL_SHA256_HPP
#define SORTIE_BAZEL_SHA256_HPP

#include <string>
#include <string_view>

namespace sortie::bazel {

// 64 lower-case hex digits of the SHA-256 of `text`.
std::string sha256_hex(std::string_view text);

// "sha256:" and the hex SHA-256 of the file's bytes. Throws FAILED_PRECONDITION when the file
// cannot be read.
std::string file_digest(const std::string& path);

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_SHA256_HPP
