// File: sortie/model/printable.hpp
//
// User-given text (titles, names, file names, messages) made safe to print on a terminal, on
// stdout and stderr alike.
#ifndef SORTIE_MODEL_PRINTABLE_HPP
#define SORTIE_MODEL_PRINTABLE_HPP

#include <string>
#include <string_view>

namespace sortie::model {

// `text` with every character that a terminal acts on instead of showing written as an escape,
// so that a title holding ESC[2J cannot clear the screen, nor a CR or LF forge a row of a table:
// C0 controls (TAB, CR and LF included: a field stays on its line and in its column), DEL and
// bytes that are not UTF-8 as \xNN; C1 controls (U+0080-U+009F) and the bidi embeddings,
// overrides and isolates (U+202A-U+202E, U+2066-U+2069) as \uNNNN. Any other text, backslashes
// included, is kept as is. For human-readable output only: --json escapes as JSON does.
std::string printable(std::string_view text);

// As printable(), but LF and TAB are kept: for an error or warning on stderr, whose text may span
// lines (a plugin's error quoting a build's output) and holds file names, keys and handles that
// came from the user.
std::string printable_message(std::string_view text);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_PRINTABLE_HPP
