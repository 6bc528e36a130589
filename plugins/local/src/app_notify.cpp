#include "app_notify.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_util.hpp"

namespace sortie::local {

std::string notify_fifo_path(const std::string& app_dir) { return app_dir + "/notify"; }

void create_notify_fifo(const std::string& app_dir) {
  const std::string path = notify_fifo_path(app_dir);
  if (::mkfifo(path.c_str(), 0600) != 0) throw_errno("cannot create '" + path + "'");
}

void notify_waiters(const std::string& app_dir) {
  // ENXIO (no reader) is the common case and means there is nobody to wake.
  const int fd = ::open(notify_fifo_path(app_dir).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
}

}  // namespace sortie::local
