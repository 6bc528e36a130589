// File: core/cli/durations.hpp
//
// Spans of time as people read them in tables: `sortie list`'s AGE, `experiments list`'s STARTED
// and DURATION.
#ifndef SORTIE_CLI_DURATIONS_HPP
#define SORTIE_CLI_DURATIONS_HPP

#include <cstdint>
#include <string>

namespace sortie::cli {

// "45s", "12m", "5h", "3d", for a span in ns (coarser as it grows: a table's column stays short).
std::string coarse_duration(int64_t span_ns);

// "45s ago" for a time in ns since the epoch; "-" for 0 (never).
std::string age(int64_t since_ns);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_DURATIONS_HPP
