// A plugin's run options as a table (the SDK's RunOptionSpec, sortie/run_options.hpp): the
// payload run_options() returns for a span of rows, and the refusal of an option the table does
// not have. Shared by the first-party plugins.
#ifndef SORTIE_PLUGINS_RUN_OPTION_TABLE_HPP
#define SORTIE_PLUGINS_RUN_OPTION_TABLE_HPP

#include <rapidjson/document.h>

#include <sortie/run_options.hpp>
#include <span>
#include <string>
#include <string_view>

namespace sortie {

// The sortie.runopts/1 JSON text listing `options`.
std::string write_run_options(std::span<const RunOptionSpec> options);

// Throws INVALID_ARGUMENT naming the first member of `cfg` that `options` does not list, and
// where to look: "run option 'x' is not supported by the slurm scheduler; see `sortie runopts
// slurm`".
void refuse_unknown_run_options(const rapidjson::Value& cfg, std::span<const RunOptionSpec> options,
                                std::string_view scheduler);

}  // namespace sortie

#endif  // SORTIE_PLUGINS_RUN_OPTION_TABLE_HPP
