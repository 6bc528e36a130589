// Bazel labels as the bazel packagers accept them: absolute, naming exactly one target.
#ifndef SORTIE_BAZEL_LABEL_HPP
#define SORTIE_BAZEL_LABEL_HPP

#include <string>
#include <string_view>

namespace sortie::bazel {

// The label in the form `bazel cquery` prints it: "//pkg:name" ("@repo//pkg:name" for another
// repository). "//pkg" becomes "//pkg:pkg" and "@//pkg:name" becomes "//pkg:name". Throws
// INVALID_ARGUMENT for a relative label (":name", "pkg:name") and for patterns naming several
// targets (":all", ":*", ":all-targets", "...").
std::string canonical_label(std::string_view label);

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_LABEL_HPP
