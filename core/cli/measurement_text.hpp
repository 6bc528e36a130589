// File: core/cli/measurement_text.hpp
//
// How the CLI writes a measured value: 6 significant digits in tables and follow output, the
// shortest text that reads back the same number in CSV (JSON has its own); and whose it is.
#ifndef SORTIE_CLI_MEASUREMENT_TEXT_HPP
#define SORTIE_CLI_MEASUREMENT_TEXT_HPP

#include <cstdint>
#include <sortie/session/json_text.hpp>
#include <sortie/store/store.hpp>
#include <string>

namespace sortie::cli {

std::string value_text(double value);
std::string exact_value_text(double value);

// "ROLE/REPLICA" of a series, "ROLE/REPLICA[RANK]" for a rank's (torchrun's `[r]:` lines), made
// printable.
std::string series_source_text(const store::MeasurementSeries& series);
// The member "rank" of a series' JSON: its rank, or null for lines of no rank.
void rank_json(session::JsonText& out, int32_t rank);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_MEASUREMENT_TEXT_HPP
