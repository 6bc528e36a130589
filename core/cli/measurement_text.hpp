// File: core/cli/measurement_text.hpp
//
// How the CLI writes a measured value: 6 significant digits in tables and follow output, the
// shortest text that reads back the same number in CSV (JSON has its own).
#ifndef SORTIE_CLI_MEASUREMENT_TEXT_HPP
#define SORTIE_CLI_MEASUREMENT_TEXT_HPP

#include <string>

namespace sortie::cli {

std::string value_text(double value);
std::string exact_value_text(double value);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_MEASUREMENT_TEXT_HPP
