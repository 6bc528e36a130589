#include "model_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sortie/core/error.hpp>
#include <sstream>

namespace sortie::core {
namespace {

std::optional<std::string> read(const std::string& path, const std::string& what,
                                bool missing_is_error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    if (error == ENOENT && !missing_is_error) return std::nullopt;
    const sortie_status status = error == ENOENT   ? SORTIE_NOT_FOUND
                                 : error == EACCES ? SORTIE_PERMISSION_DENIED
                                                   : SORTIE_UNKNOWN;
    throw Error(status, "cannot read " + what + " '" + path + "': " + std::strerror(error));
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) {
    throw Error::unknown("cannot read " + what + " '" + path + "': read error");
  }
  return content.str();
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what) {
  return *read(path, what, true);
}

std::optional<std::string> read_text_file_if_exists(const std::string& path,
                                                    const std::string& what) {
  return read(path, what, false);
}

}  // namespace sortie::core
