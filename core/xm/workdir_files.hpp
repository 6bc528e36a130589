// Which files of a launch directory its snapshot holds (docs/experiments.md, "The working
// directory units run from"): in a git work tree what git keeps (tracked files and untracked ones
// .gitignore does not exclude), elsewhere every file but a default exclude list; in both, less the
// patterns of a .sortieignore, and bounded in size (docs/limits.md L-16).
#ifndef SORTIE_XM_WORKDIR_FILES_HPP
#define SORTIE_XM_WORKDIR_FILES_HPP

#include <sys/stat.h>

#include <string>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

struct WorkdirFile {
  std::string relative;  // under the launch directory
  struct stat info {};   // lstat: regular files and symbolic links only
};

struct WorkdirFiles {
  std::vector<WorkdirFile> files;     // sorted by path
  std::string rules;                  // "git" or "default": which excludes chose them
  int64_t bytes = 0;                  // of the regular files
  std::vector<std::string> warnings;  // for the user, about how they were chosen
};

// The files to snapshot of `launch_dir`, never any under `skipped_dirs` (sortie's own state when
// it lies inside). Throws INVALID_ARGUMENT for a .sortieignore pattern it cannot honour and
// RESOURCE_EXHAUSTED past the size limit, naming the biggest files.
WorkdirFiles list_workdir_files(const std::string& launch_dir,
                                const std::vector<std::string>& skipped_dirs);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_WORKDIR_FILES_HPP
