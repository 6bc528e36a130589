// File: core/cli/run_config.hpp
//
// What `sortie run` reads from .sortieconfig and .torchxconfig (docs:
// sortie/model/config_file.hpp), checked so that a typo is an error naming FILE:LINE rather than a
// setting that silently does nothing: section names against [cli:run], the registry's schedulers
// and [component:NAME] of its components, and [cli:run]'s keys and values. A scheduler's and a
// component's keys are checked where they are used (run options in the session::Launcher,
// parameters in model::instantiate).
#ifndef SORTIE_CLI_RUN_CONFIG_HPP
#define SORTIE_CLI_RUN_CONFIG_HPP

#include <optional>
#include <sortie/model/config_file.hpp>
#include <sortie/session/session.hpp>
#include <string>

namespace sortie::cli {

// The loaded configuration, once its sections and [cli:run] are checked (Error otherwise).
const model::ConfigFile& checked_run_config(session::Session& ctx);

// [cli:run] scheduler, a scheduler the registry has (checked by checked_run_config).
std::optional<model::ConfigValue> configured_scheduler(const model::ConfigFile& config);

// [cli:run] component, run when the command line names nothing to run: a component of the
// registry, or a FILE.py:FUNCTION from a trusted file (Error otherwise). Checked only when asked
// for, so a file's component that nothing runs refuses no other command.
std::optional<model::ConfigValue> configured_component(session::Session& ctx,
                                                       const model::ConfigFile& config);

// TorchX's component files: FILE.py:FUNCTION, a function returning a specs.AppDef.
bool names_component_file(const std::string& component);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_RUN_CONFIG_HPP
