// File: core/cli/status_format.hpp
//
// Human and JSON renderings of app statuses and definitions for status, describe and list.
#ifndef SORTIE_CLI_STATUS_FORMAT_HPP
#define SORTIE_CLI_STATUS_FORMAT_HPP

#include <set>
#include <sortie/model/model.hpp>
#include <string>

namespace sortie::cli {

// TorchX-like block: state, restarts, one line per replica, msg, UI URL. `roles` filters roles
// (empty = all).
std::string format_status(const std::string& handle, const model::AppStatus& status,
                          const std::set<std::string>& roles);
// The app's roles with entrypoint, args, replicas, resources, then its status.
std::string format_app(const AppDef& app);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_STATUS_FORMAT_HPP
