// File: sortie/model/private_files.hpp
//
// Files and directories sortie creates under its state directory hold commands, environments
// (secrets included) and logs: they are the user's only (0700 directories, 0600 files), whoever
// creates them and whatever the umask (docs/store.md).
#ifndef SORTIE_MODEL_PRIVATE_FILES_HPP
#define SORTIE_MODEL_PRIVATE_FILES_HPP

#include <sys/stat.h>

namespace sortie::model {

// While it lives, whatever this process creates is private to the user (umask 077). The umask
// is process-wide: use it around creation on the main thread only.
class PrivateCreation {
 public:
  PrivateCreation() : previous_(::umask(077)) {}
  ~PrivateCreation() { ::umask(previous_); }
  PrivateCreation(const PrivateCreation&) = delete;
  PrivateCreation& operator=(const PrivateCreation&) = delete;

 private:
  mode_t previous_;
};

}  // namespace sortie::model

#endif  // SORTIE_MODEL_PRIVATE_FILES_HPP
