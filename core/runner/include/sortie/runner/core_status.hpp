// File: core/runner/include/sortie/runner/core_status.hpp
//
// A runner status as the core's, for the CLI, which renders statuses with the core's formatters
// (text, and the JSON of docs/payloads.md P-8). Not installed.
#ifndef SORTIE_RUNNER_CORE_STATUS_HPP
#define SORTIE_RUNNER_CORE_STATUS_HPP

#include <sortie/core/model.hpp>
#include <sortie/runner.hpp>

namespace sortie::runner {

core::AppStatus core_status(const AppStatus& status);

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_CORE_STATUS_HPP
