// Running Debian's python3 with this installation's Python package (docs/python.md): first on
// PYTHONPATH come the sortie-compat packages (xmanager, torchx as sortie's modules), then the
// package itself; $SORTIE_SESSION carries the CLI's session, and $SORTIE_USER_PYTHONPATH the
// user's own PYTHONPATH, which the package restores for the processes the script starts.
#ifndef SORTIE_CLI_PYTHON_EXEC_HPP
#define SORTIE_CLI_PYTHON_EXEC_HPP

#include <sortie/session/session.hpp>
#include <string>
#include <vector>

namespace sortie::cli {

// Replaces this process with python3 ARGUMENTS...; throws if python3 cannot be run.
[[noreturn]] void exec_python(session::Session& ctx, const std::vector<std::string>& arguments);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_PYTHON_EXEC_HPP
