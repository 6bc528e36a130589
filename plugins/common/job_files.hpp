// Opening the files a job can replace (its logs and metrics file, anything in its directories)
// without trusting what they are (docs/payloads.md P-10): a FIFO there would block the reader for
// ever, a link to /dev/zero would feed it without end.
#ifndef SORTIE_PLUGINS_COMMON_JOB_FILES_HPP
#define SORTIE_PLUGINS_COMMON_JOB_FILES_HPP

#include <string>

namespace sortie::plugins_common {

// A descriptor of the regular file `path` opened for reading, or -1 when nothing is there (yet).
// Opened without following a last link and without blocking, then checked: a link, FIFO, socket,
// device or directory there is Error(FAILED_PRECONDITION) naming `path` and what it is; another
// failure is Error(UNKNOWN) with the system's reason.
int open_job_file(const std::string& path);

}  // namespace sortie::plugins_common

#endif  // SORTIE_PLUGINS_COMMON_JOB_FILES_HPP
