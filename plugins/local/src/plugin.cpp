// The entry point of the local plugin: two schedulers, the two image providers they use and the
// binary packager.
#include <sortie/version.h>

#include <sortie/plugin.hpp>

#include "binary_packager.hpp"
#include "image_providers.hpp"
#include "local_scheduler.hpp"

using sortie::local::BinaryPackager;
using sortie::local::CwdImageProvider;
using sortie::local::DirImageProvider;
using sortie::local::LocalCwdScheduler;
using sortie::local::LocalDirScheduler;

SORTIE_PLUGIN(
    "sortie_local", SORTIE_VERSION,
    SORTIE_SCHEDULER("local_cwd", "Runs each replica as a process in the current working directory",
                     LocalCwdScheduler),
    SORTIE_SCHEDULER("local_dir", "Runs each replica as a process inside its image directory",
                     LocalDirScheduler),
    SORTIE_IMAGE_PROVIDER("cwd", "Image = the current working directory", CwdImageProvider),
    SORTIE_IMAGE_PROVIDER("dir", "Image = an existing absolute directory", DirImageProvider),
    SORTIE_PACKAGER("binary", "An executable file on this host, run as a process", BinaryPackager));
