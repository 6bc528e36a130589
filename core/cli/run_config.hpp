// File: core/cli/run_config.hpp
//
// What `sortie run` reads from .sortieconfig (docs: sortie/model/config_file.hpp), checked so that
// a typo is an error naming FILE:LINE rather than a setting that silently does nothing: section
// names against [cli:run], the registry's schedulers and [component:NAME] of its components, and
// [cli:run]'s keys and values. A scheduler's and a component's keys are checked where they are
// used (run options in the session::Launcher, parameters in model::instantiate).
#ifndef SORTIE_CLI_RUN_CONFIG_HPP
#define SORTIE_CLI_RUN_CONFIG_HPP

#include <optional>
#include <sortie/model/config_file.hpp>
#include <sortie/session/session.hpp>

namespace sortie::cli {

// The loaded configuration, once its sections and [cli:run] are checked (Error otherwise).
const model::ConfigFile& checked_run_config(session::Session& ctx);

// [cli:run] scheduler, a scheduler the registry has (checked by checked_run_config).
std::optional<model::ConfigValue> configured_scheduler(const model::ConfigFile& config);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_RUN_CONFIG_HPP
