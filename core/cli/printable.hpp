// File: core/cli/printable.hpp
//
// The CLI's tables and reports escape user-given text with model::printable
// (sortie/model/printable.hpp), which the layers below the CLI share for what they print on stderr.
#ifndef SORTIE_CLI_PRINTABLE_HPP
#define SORTIE_CLI_PRINTABLE_HPP

#include <sortie/model/printable.hpp>

namespace sortie::cli {

using model::printable;

}  // namespace sortie::cli

#endif  // SORTIE_CLI_PRINTABLE_HPP
