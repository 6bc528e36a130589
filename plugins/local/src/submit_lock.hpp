// Who is responsible for starting an app's supervisor. The submitting process takes an flock on
// the app directory before writing anything in it and hands the descriptor to the starter, which
// the supervisor inherits and closes once it has recorded itself in state.json. So while the
// lock is held, someone alive will record a supervisor (or the failure); a state.json without a
// supervisor whose lock is free belongs to a submission that was killed part-way.
#ifndef SORTIE_LOCAL_SUBMIT_LOCK_HPP
#define SORTIE_LOCAL_SUBMIT_LOCK_HPP

#include <string>

namespace sortie::local {

// The descriptor number under which the starter and the supervisor hold the lock.
inline constexpr int kSubmitLockFd = 3;

// Opens `app_dir` and locks it; returns the close-on-exec descriptor. Throws naming the dir.
int lock_for_submission(const std::string& app_dir);

// True when some process holds the submission lock of `app_dir`.
bool submission_in_progress(const std::string& app_dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_SUBMIT_LOCK_HPP
