// File: core/cli/metrics_option.hpp
//
// `--metrics PATTERN` of `sortie run` and `sortie launch`: asks for a job's log line measurements
// (docs/experiments.md XF-35) without editing its spec or experiment file. A SORTIE_METRICS_*
// variable exported in the launching shell reaches no job, so it is named in a warning.
#ifndef SORTIE_CLI_METRICS_OPTION_HPP
#define SORTIE_CLI_METRICS_OPTION_HPP

#include <boost/program_options.hpp>
#include <string>

namespace sortie::cli {

// Adds --metrics, whose value goes to `pattern`.
void add_metrics_option(boost::program_options::options_description& desc, std::string& pattern);

// Warns on stderr of each SORTIE_METRICS_* variable of this process's environment: a job's
// measurements are asked for in its own environment, or with --metrics.
void warn_shell_metrics_variables(const char* command);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_METRICS_OPTION_HPP
