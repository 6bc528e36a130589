// File: sortie/model/regular_file.hpp
//
// Only a regular file is read as a file people write (.sortieconfig, specs, experiment files,
// launch scripts): opening a FIFO waits for a writer for ever, and a device never ends.
#ifndef SORTIE_MODEL_REGULAR_FILE_HPP
#define SORTIE_MODEL_REGULAR_FILE_HPP

#include <sys/types.h>

#include <sortie/model/error.hpp>
#include <string>

namespace sortie::model {

// "cannot read WHAT 'PATH': <the system's reason>", NOT_FOUND for ENOENT, PERMISSION_DENIED for
// EACCES, UNKNOWN otherwise.
Error cannot_read(int error, const std::string& what, const std::string& path);

// Throws INVALID_ARGUMENT naming `what`, `path` and what the file is (a FIFO, a directory, ...)
// unless `mode` (stat's st_mode) is a regular file's.
void require_regular_file(mode_t mode, const std::string& what, const std::string& path);

// The same for the file at `path`, symbolic links followed, without opening it; throws
// cannot_read when it cannot be looked at.
void require_regular_file(const std::string& what, const std::string& path);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_REGULAR_FILE_HPP
