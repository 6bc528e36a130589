#include "model_files.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sortie/core/error.hpp>
#include <sortie/limits.hpp>

namespace sortie::core {
namespace {

std::optional<std::string> read(const std::string& path, const std::string& what,
                                const limits::Limit& size_limit, bool missing_is_error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    if (error == ENOENT && !missing_is_error) return std::nullopt;
    const sortie_status status = error == ENOENT   ? SORTIE_NOT_FOUND
                                 : error == EACCES ? SORTIE_PERMISSION_DENIED
                                                   : SORTIE_UNKNOWN;
    throw Error(status, "cannot read " + what + " '" + path + "': " + std::strerror(error));
  }
  // Read in chunks, so a file past the limit (or an endless stream) is refused having cost no
  // more than the limit.
  const size_t max_bytes = limits::value(size_limit);
  std::string content;
  std::array<char, 65536> chunk;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    content.append(chunk.data(), static_cast<size_t>(in.gcount()));
    if (content.size() > max_bytes) {
      throw Error::invalid_argument(path + ": " + limits::exceeded("the " + what, size_limit));
    }
  }
  if (in.bad()) {
    throw Error::unknown("cannot read " + what + " '" + path + "': read error");
  }
  return content;
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what,
                           const limits::Limit& size_limit) {
  return *read(path, what, size_limit, true);
}

std::optional<std::string> read_text_file_if_exists(const std::string& path,
                                                    const std::string& what,
                                                    const limits::Limit& size_limit) {
  return read(path, what, size_limit, false);
}

}  // namespace sortie::core
