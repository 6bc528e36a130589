// The entry point of the bazel plugin: the bazel_binary and bazel_container packagers.
#include <sortie/version.h>

#include <sortie/plugin.hpp>

#include "bazel_packager.hpp"

using sortie::bazel::BazelBinaryPackager;
using sortie::bazel::BazelContainerPackager;

SORTIE_PLUGIN("sortie_bazel", SORTIE_VERSION,
              SORTIE_PACKAGER("bazel_binary",
                              "Builds Bazel targets (one `bazel build` per request) and runs their "
                              "executable as a process",
                              BazelBinaryPackager),
              SORTIE_PACKAGER("bazel_container",
                              "Builds Bazel targets that make a `docker save` tarball and hands "
                              "the tarball to the container packager",
                              BazelContainerPackager));
