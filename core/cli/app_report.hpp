// File: core/cli/app_report.hpp
//
// What the commands that act on an existing app say on stderr about its status (as the runner
// API found it), and the exit status it leads to.
#ifndef SORTIE_CLI_APP_REPORT_HPP
#define SORTIE_CLI_APP_REPORT_HPP

#include <optional>
#include <sortie/runner.hpp>
#include <string>

namespace sortie::cli {

// Says on stderr that `handle` is unknown; returns kExitAppNotSucceeded.
int report_unknown_app(const std::string& handle);

// For status and describe, which show the status: says on stderr when it is the store's last
// record and why, and returns the exit status. A state that could not be refreshed because the
// plugin is missing exits kExitBackend unless it is terminal (a terminal state cannot change).
int report_shown_status(const std::string& handle, const std::optional<runner::AppStatus>& status);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_APP_REPORT_HPP
