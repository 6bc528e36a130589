#include "launch_script.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sortie/core/error.hpp>
#include <sortie/core/regular_file.hpp>
#include <sortie/registry/install_location.hpp>

namespace sortie::cli {
namespace {

// Where python/CMakeLists.txt installs the package, and the interpreter it was built for.
constexpr const char* kPythonExecutable = "/usr/bin/python3";
constexpr const char* kPythonPackageDir = "lib/python3/dist-packages";
// Packages named xmanager and torchx whose modules are sortie's (sortie/compat_path.py): first
// on the script's path, so `from xmanager import xm` is sortie's in this run only.
constexpr const char* kCompatDir = "lib/python3/dist-packages/sortie/compat";
// Read by sortie.xm: add() prints each scheduler's request and submits nothing.
constexpr const char* kDryRunVariable = "SORTIE_LAUNCH_DRYRUN";

bool is_script(const std::string& word) {
  return word.size() > 3 && word.compare(word.size() - 3, 3, ".py") == 0;
}

}  // namespace

bool names_launch_script(const Args& args) {
  for (const std::string& word : args) {
    if (!word.empty() && word[0] != '-') return is_script(word);
  }
  return false;
}

int run_launch_script(session::Session& ctx, const Args& args) {
  bool dry_run = false;
  size_t index = 0;
  for (; index < args.size() && !is_script(args[index]); ++index) {
    if (args[index] != "--dryrun") {
      throw core::Error::invalid_argument(
          "sortie launch FILE.py: unknown option '" + args[index] +
          "' before the script; only --dryrun is taken there, and the script's own arguments "
          "go after it: sortie launch [--dryrun] FILE.py [-- ARGS...]");
    }
    dry_run = true;
  }
  if (!ctx.options().plugin_dirs.empty()) {
    throw core::Error::invalid_argument(
        "sortie launch FILE.py: --plugin-dir does not reach a launch script; install the plugins "
        "where the manifest search path finds them (docs/registry.md)");
  }
  // python3 would wait for ever on a FIFO's open.
  core::require_regular_file("launch script", args[index]);
  std::vector<std::string> words = {kPythonExecutable, args[index]};
  ++index;
  if (index < args.size() && args[index] == "--") ++index;
  words.insert(words.end(), args.begin() + static_cast<std::ptrdiff_t>(index), args.end());

  const auto prefix = registry::install_prefix_of(registry::own_module_file());
  std::string python_path =
      (prefix / kCompatDir).string() + ":" + (prefix / kPythonPackageDir).string();
  if (const char* existing = std::getenv("PYTHONPATH"); existing && *existing) {
    python_path += std::string(":") + existing;
  }
  ::setenv("PYTHONPATH", python_path.c_str(), 1);
  ::setenv("SORTIE_SESSION", ctx.options().session.c_str(), 1);
  if (dry_run) ::setenv(kDryRunVariable, "1", 1);

  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv(kPythonExecutable, argv.data());
  throw core::Error::failed_precondition(std::string("sortie launch: cannot run ") +
                                         kPythonExecutable + ": " + std::strerror(errno) +
                                         " (install python3)");
}

}  // namespace sortie::cli
