#include "python_exec.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sortie/model/error.hpp>
#include <sortie/registry/install_location.hpp>

namespace sortie::cli {
namespace {

// Where python/CMakeLists.txt installs the package, and the interpreter it was built for.
constexpr const char* kPythonExecutable = "/usr/bin/python3";
constexpr const char* kPythonPackageDir = "lib/python3/dist-packages";
// Packages named xmanager and torchx whose modules are sortie's (sortie/compat_path.py): first
// on the path, so `from xmanager import xm` is sortie's in this run only.
constexpr const char* kCompatDir = "lib/python3/dist-packages/sortie/compat";
// The PYTHONPATH the user gave, read by sortie/__init__.py.
constexpr const char* kUsersPythonPathVariable = "SORTIE_USER_PYTHONPATH";

}  // namespace

void exec_python(session::Session& ctx, const std::vector<std::string>& arguments) {
  if (!ctx.options().plugin_dirs.empty()) {
    throw Error::invalid_argument(
        "--plugin-dir does not reach Python (a launch script, a component file); install the "
        "plugins where the manifest search path finds them (docs/registry.md)");
  }
  const auto prefix = registry::install_prefix_of(registry::own_module_file());
  std::string python_path =
      (prefix / kCompatDir).string() + ":" + (prefix / kPythonPackageDir).string();
  const char* users = std::getenv("PYTHONPATH");
  const std::string users_path = users != nullptr ? users : "";
  if (!users_path.empty()) python_path += ":" + users_path;
  ::setenv("PYTHONPATH", python_path.c_str(), 1);
  // The package puts it back in the interpreter's environment once the path is read, so that
  // what the script starts (its units) imports the user's packages, not sortie's compat ones.
  ::setenv(kUsersPythonPathVariable, users_path.c_str(), 1);
  ::setenv("SORTIE_SESSION", ctx.options().session.c_str(), 1);

  std::vector<std::string> words = {kPythonExecutable};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv(kPythonExecutable, argv.data());
  throw Error::failed_precondition(std::string("cannot run ") + kPythonExecutable + ": " +
                                   std::strerror(errno) + " (install python3)");
}

}  // namespace sortie::cli
