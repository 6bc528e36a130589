// Where an app's runtime files live: state.json while the app runs, the notify FIFO and
// cancel_request. They change several times per app and matter only while it runs, so when
// $XDG_RUNTIME_DIR names a private directory (tmpfs on systemd hosts) they go to
// $XDG_RUNTIME_DIR/sortie/<app_id>-XXXXXX, reached from the app directory through the symlink
// <app_dir>/run; otherwise they stay in the app directory. When the app ends, the supervisor
// copies its final state.json into the app directory and removes the runtime directory and the
// link, so a finished app's files are all on disk (docs/local-scheduler.md, "Runtime files").
#ifndef SORTIE_LOCAL_RUNTIME_DIR_HPP
#define SORTIE_LOCAL_RUNTIME_DIR_HPP

#include <optional>
#include <string>

namespace sortie::local {

// Creates the app's runtime directory under $XDG_RUNTIME_DIR/sortie and <app_dir>/run pointing
// to it, and returns it; returns app_dir itself when $XDG_RUNTIME_DIR is unset or not a
// directory of ours with mode 0700.
std::string create_runtime_dir(const std::string& app_dir, const std::string& app_id);

// The directory holding the app's runtime files, found from the app directory alone.
std::string runtime_dir_of(const std::string& app_dir);

// Where state.json is to be written: in the runtime directory while it exists, else in the app
// directory.
std::string writable_state_path(const std::string& app_dir);

// The app's state.json: the app directory's once it has one (the app ended), else the runtime
// copy. nullopt when neither exists: the runtime directory vanished (reboot, logout) before the
// app ended.
std::optional<std::string> read_state_text(const std::string& app_dir);

// After the final state is in the runtime directory: copies it into the app directory, then
// removes the runtime files; the `run` link is left dangling. Returns false (changing nothing)
// when the copy cannot be written, so readers keep finding the state where it is.
bool retire_runtime_dir(const std::string& app_dir, const std::string& runtime_dir);

// When the runtime directory vanished under a running app (a logout or a reboot emptied
// $XDG_RUNTIME_DIR): removes the dangling link, so the app directory holds the runtime files
// from now on, and returns the app directory.
std::string fall_back_to_app_dir(const std::string& app_dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_RUNTIME_DIR_HPP
