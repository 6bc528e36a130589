// Atomic submit (docs/store.md, "Submission"): an app is recorded as UNSUBMITTED, with the pid
// of the process submitting it, before its scheduler runs anything, and confirmed SUBMITTED
// after. A record left UNSUBMITTED by a process that died is settled by the next sortie command
// (reconcile_submissions): the scheduler's word if it knows the app, else FAILED.
#ifndef SORTIE_SESSION_SUBMISSION_HPP
#define SORTIE_SESSION_SUBMISSION_HPP

#include <sys/types.h>

#include <optional>
#include <sortie/store/store.hpp>
#include <string>
#include <vector>

namespace sortie::session {

class Session;

// The message of a record whose submission is under way by this process.
std::string submitting_message();
// The submitting pid a submitting_message() names, or nullopt for any other message.
std::optional<pid_t> submitter_of(const std::string& msg);

// True when `record` is UNSUBMITTED by a process that no longer runs.
bool submitter_gone(const store::AppRecord& record);
// True when some record of `store` is UNSUBMITTED by a process that no longer runs.
bool has_unsettled_submissions(const store::AppStore& store);

// Settles the UNSUBMITTED records whose submitter is gone; returns one sentence per app settled.
// Errors (a store that cannot be written, a scheduler that cannot be asked) leave the record for
// the next command.
std::vector<std::string> reconcile_submissions(Session& session);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_SUBMISSION_HPP
