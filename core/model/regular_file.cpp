#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <sortie/model/regular_file.hpp>

namespace sortie::model {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

}  // namespace

Error cannot_read(int error, const std::string& what, const std::string& path) {
  const sortie_status status = error == ENOENT   ? SORTIE_NOT_FOUND
                               : error == EACCES ? SORTIE_PERMISSION_DENIED
                                                 : SORTIE_UNKNOWN;
  return Error(status, "cannot read " + what + " '" + path + "': " + std::strerror(error));
}

void require_regular_file(mode_t mode, const std::string& what, const std::string& path) {
  if (S_ISREG(mode)) return;
  throw Error::invalid_argument("cannot read " + what + " '" + path + "': it is " + kind_of(mode) +
                                ", not a regular file; give the path of a file");
}

void require_regular_file(const std::string& what, const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw cannot_read(errno, what, path);
  require_regular_file(info.st_mode, what, path);
}

}  // namespace sortie::model
