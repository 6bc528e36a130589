// `sortie ui` in the `sortie` executable: runs the same command line again in sortie-ui, the
// build of the command line that links the dashboard (core/cli/CMakeLists.txt), found in the
// installation this executable belongs to.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sortie/model/error.hpp>
#include <sortie/registry/install_location.hpp>
#include <string>
#include <vector>

#include "commands.hpp"

namespace sortie::cli {

int cmd_ui(session::Session&, const Args&) {
  const std::string helper = (registry::install_prefix_of(registry::own_module_file()) /
                              SORTIE_UI_HELPER_DIR / "sortie-ui")
                                 .lexically_normal()
                                 .string();
  // The whole command line, global options included, as the kernel keeps it.
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  const std::string words((std::istreambuf_iterator<char>(cmdline)),
                          std::istreambuf_iterator<char>());
  std::vector<char*> argv;
  for (size_t start = 0; start < words.size(); start = words.find('\0', start) + 1) {
    argv.push_back(const_cast<char*>(words.c_str() + start));
  }
  argv.push_back(nullptr);
  ::execv(helper.c_str(), argv.data());
  throw Error::failed_precondition("cannot run " + helper + " (" + std::strerror(errno) +
                                   "), which serves `sortie ui`: reinstall sortie");
}

}  // namespace sortie::cli
