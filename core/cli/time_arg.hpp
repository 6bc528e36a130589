// File: core/cli/time_arg.hpp
//
// Parses --since/--until values: Unix seconds ("1700000000"), ISO 8601 in UTC
// ("2026-11-21T23:00:00Z") or local time (without the Z), or a duration ago ("90s", "15m",
// "2h", "1d").
#ifndef SORTIE_CLI_TIME_ARG_HPP
#define SORTIE_CLI_TIME_ARG_HPP

#include <cstdint>
#include <string>

namespace sortie::cli {

// Nanoseconds since the Unix epoch; throws Error naming `option` for anything else.
int64_t parse_time_arg(const std::string& text, const char* option, int64_t now_ns);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_TIME_ARG_HPP
