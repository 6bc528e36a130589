#include "metrics_option.hpp"

#include <cstdio>
#include <cstring>
#include <sortie/session/measurement_collector.hpp>
#include <string_view>

#include "printable.hpp"

extern char** environ;

namespace sortie::cli {

void add_metrics_option(boost::program_options::options_description& desc, std::string& pattern) {
  desc.add_options()("metrics", boost::program_options::value(&pattern),
                     "read the jobs' output lines that match PATTERN (an extended regex, or "
                     "`default`: lines with step=N) for key=value measurements; sets "
                     "SORTIE_METRICS_PATTERN in every role's environment");
}

void warn_shell_metrics_variables(const char* command) {
  constexpr std::string_view prefix = "SORTIE_METRICS_";
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    if (variable.substr(0, prefix.size()) != prefix) continue;
    const std::string name(variable.substr(0, variable.find('=')));
    std::fprintf(stderr,
                 "%s: warning: %s is set in this shell, where no job sees it: ask for "
                 "measurements with --metrics PATTERN, or set %s in the job's environment "
                 "(docs/experiments.md XF-35)\n",
                 command, printable(name).c_str(), session::kMetricsPatternVariable);
  }
}

}  // namespace sortie::cli
