// `sortie launch [--dryrun] FILE.py [-- ARGS...]`: runs an XManager-style launch script with
// Debian's python3, as `xmanager launch` does, with this installation's Python package (sortie.xm,
// docs/python.md) first on PYTHONPATH.
#ifndef SORTIE_CLI_LAUNCH_SCRIPT_HPP
#define SORTIE_CLI_LAUNCH_SCRIPT_HPP

#include <sortie/session/session.hpp>

#include "commands.hpp"

namespace sortie::cli {

// True when the launch's FILE (its first word not starting with '-') names a .py file.
bool names_launch_script(const Args& args);
// Replaces this process with python3 running the script; returns only on a usage error (thrown).
int run_launch_script(session::Session& ctx, const Args& args);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_LAUNCH_SCRIPT_HPP
