// File: core/xm/annotations.hpp (private to sortie_xm)
//
// The rules for what a researcher writes on an experiment (docs/experiments.md, "Notes and
// tags"): a tag must survive the CLI's `+TAG`/`-TAG` words, a URL and a shell unquoted, and notes
// are bounded text.
#ifndef SORTIE_XM_ANNOTATIONS_HPP
#define SORTIE_XM_ANNOTATIONS_HPP

#include <string>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

// Throws Error(INVALID_ARGUMENT) naming the first tag that is not 1 to 64 characters of letters,
// digits and `_ . : / = @ + -` starting with a letter, digit or `_`.
void check_tags(const std::vector<std::string>& tags);

// Throws Error(INVALID_ARGUMENT) for notes past docs/limits.md L-22 or holding a NUL byte.
void check_notes(const std::string& notes);

// Throws Error(INVALID_ARGUMENT) when an experiment would carry more than L-23 tags.
void check_tag_count(size_t count);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_ANNOTATIONS_HPP
