#include "process_tree.hpp"

#include <dirent.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace sortie::slurm {
namespace {

// The parent of `pid` from /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold spaces
// and parentheses, so the fields are read after its last ')'); 0 when the process is gone.
pid_t parent_of(const char* pid) {
  std::ifstream in(std::string("/proc/") + pid + "/stat");
  std::stringstream stat;
  stat << in.rdbuf();
  const std::string text = stat.str();
  const size_t comm_end = text.rfind(')');
  if (comm_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(comm_end + 1));
  std::string state;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

}  // namespace

std::vector<pid_t> descendants_of(pid_t root) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  if (DIR* proc = ::opendir("/proc")) {
    while (const dirent* entry = ::readdir(proc)) {
      const std::string name = entry->d_name;
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t parent = parent_of(entry->d_name);
      if (parent > 0) children.emplace(parent, static_cast<pid_t>(std::stol(name)));
    }
    ::closedir(proc);
  }
  std::vector<pid_t> found;
  std::vector<pid_t> to_visit = {root};
  while (!to_visit.empty()) {
    const pid_t parent = to_visit.back();
    to_visit.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      found.push_back(it->second);
      to_visit.push_back(it->second);
    }
  }
  return found;
}

size_t signal_descendants(pid_t root, int signal) {
  const std::vector<pid_t> processes = descendants_of(root);
  for (const pid_t pid : processes) ::kill(pid, signal);
  return processes.size();
}

}  // namespace sortie::slurm
