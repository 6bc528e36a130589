#include "app_cgroup.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace sortie::local {
namespace {

// How long kill_and_remove_cgroup waits for the killed processes to be gone: SIGKILL is
// immediate, except for a process stuck in an uninterruptible wait (a dead NFS server).
constexpr std::chrono::milliseconds kEmptyingDeadline(10000);

// Mount points in mountinfo escape space, tab, newline and backslash as \ooo.
std::string unescape_mount_path(const std::string& text) {
  std::string path;
  for (size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '\\' && at + 3 < text.size()) {
      path += static_cast<char>(std::stoi(text.substr(at + 1, 3), nullptr, 8));
      at += 3;
    } else {
      path += text[at];
    }
  }
  return path;
}

// Where the cgroup2 hierarchy is mounted, and the cgroup path its root stands for.
bool find_cgroup2_mount(std::string* mount_point, std::string* mount_root) {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    // id parent major:minor root mount-point options [optional...] - type source super-options
    const size_t separator = line.find(" - ");
    if (separator == std::string::npos || line.compare(separator + 3, 8, "cgroup2 ") != 0) {
      continue;
    }
    std::istringstream fields(line.substr(0, separator));
    std::string id, parent, device;
    fields >> id >> parent >> device >> *mount_root >> *mount_point;
    *mount_root = unescape_mount_path(*mount_root);
    *mount_point = unescape_mount_path(*mount_point);
    return true;
  }
  return false;
}

// Writes all of `text` to the existing file `path`; "" or why not.
std::string write_control_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path + ": " + std::strerror(errno);
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  ::close(fd);
  return written ? "" : "cannot write " + path + ": " + std::strerror(error);
}

// Whether cgroup.events says "populated 0"; reads from the start of `fd`.
bool reads_unpopulated(int fd) {
  char text[256];
  const ssize_t n = ::pread(fd, text, sizeof(text) - 1, 0);
  if (n <= 0) return false;
  text[n] = '\0';
  return std::strstr(text, "populated 0") != nullptr;
}

// Waits until the cgroup `dir` has no live process; "" or why not.
std::string await_unpopulated(const std::string& dir) {
  const std::string events = dir + "/cgroup.events";
  const int fd = ::open(events.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? "" : "cannot open " + events + ": " + std::strerror(errno);
  const auto deadline = std::chrono::steady_clock::now() + kEmptyingDeadline;
  bool empty = reads_unpopulated(fd);
  while (!empty) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    // The kernel flags a change of cgroup.events as POLLPRI.
    pollfd changed{fd, POLLPRI, 0};
    if (::poll(&changed, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    empty = reads_unpopulated(fd);
  }
  ::close(fd);
  return empty ? ""
               : "processes of " + dir + " are still alive " +
                     std::to_string(kEmptyingDeadline.count() / 1000) + " s after cgroup.kill";
}

}  // namespace

std::string own_cgroup_dir(std::string* why) {
  std::string mount_point, mount_root;
  if (!find_cgroup2_mount(&mount_point, &mount_root)) {
    *why = "no cgroup2 file system is mounted";
    return "";
  }
  std::ifstream membership("/proc/self/cgroup");
  std::string line;
  while (std::getline(membership, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    std::string path = line.substr(3);
    // A mount of a sub-tree (in a container) shows paths below its root.
    if (mount_root != "/" && path.rfind(mount_root, 0) == 0) path.erase(0, mount_root.size());
    if (path == "/") path.clear();
    return mount_point + path;
  }
  *why = "this process is in no cgroup v2 cgroup (/proc/self/cgroup has no 0:: line)";
  return "";
}

std::string create_app_cgroup(const std::string& app_id, std::string* why) {
  const std::string own = own_cgroup_dir(why);
  if (own.empty()) return "";
  // App ids repeat across state dirs: a taken name gets the starter's pid appended.
  std::string dir = own + "/sortie-" + app_id;
  int made = ::mkdir(dir.c_str(), 0755) == 0 ? 0 : errno;
  if (made == EEXIST) {
    dir += "." + std::to_string(::getpid());
    made = ::mkdir(dir.c_str(), 0755) == 0 ? 0 : errno;
  }
  if (made != 0) {
    *why = "cannot create cgroup " + dir + ": " + std::strerror(made);
    return "";
  }
  if (::access((dir + "/cgroup.kill").c_str(), W_OK) != 0) {
    *why = dir + "/cgroup.kill is missing or not writable (cgroup.kill needs Linux 5.14)";
    ::rmdir(dir.c_str());
    return "";
  }
  // The move a replica makes, tried by this process there and back: it needs write access to
  // our cgroup.procs (that of the common ancestor) as well as to the new one's.
  std::string moved = write_control_file(dir + "/cgroup.procs", "0");
  if (moved.empty()) moved = write_control_file(own + "/cgroup.procs", "0");
  if (!moved.empty()) {
    *why = moved;
    ::rmdir(dir.c_str());  // fails, harmlessly, in the unlikely case that we could not leave it
    return "";
  }
  return dir;
}

std::string kill_and_remove_cgroup(const std::string& dir) {
  const std::string killed = write_control_file(dir + "/cgroup.kill", "1");
  if (!killed.empty() && ::access(dir.c_str(), F_OK) != 0) return "";  // already removed
  if (!killed.empty()) return killed;
  if (std::string waited = await_unpopulated(dir); !waited.empty()) return waited;
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
    return "cannot remove cgroup " + dir + ": " + std::strerror(errno);
  }
  return "";
}

}  // namespace sortie::local
