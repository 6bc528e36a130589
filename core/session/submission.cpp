#include <unistd.h>

#include <cstdlib>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/session/process_liveness.hpp>
#include <sortie/session/session.hpp>
#include <sortie/session/submission.hpp>

namespace sortie::session {
namespace {

constexpr const char* kSubmittingPrefix = "submitting (sortie pid ";

}  // namespace

std::string submitting_message() { return kSubmittingPrefix + std::to_string(::getpid()) + ")"; }

std::optional<pid_t> submitter_of(const std::string& msg) {
  const std::string prefix = kSubmittingPrefix;
  if (msg.rfind(prefix, 0) != 0) return std::nullopt;
  return static_cast<pid_t>(std::strtol(msg.c_str() + prefix.size(), nullptr, 10));
}

bool submitter_gone(const store::AppRecord& record) {
  const std::optional<pid_t> submitter = submitter_of(record.msg);
  return submitter && !running_since(*submitter, record.submitted_at);
}

bool has_unsettled_submissions(const store::AppStore& store) {
  store::ListFilter filter;
  filter.state = model::AppState::kUnsubmitted;
  for (const store::AppRecord& record : store.list(filter)) {
    if (submitter_gone(record)) return true;
  }
  return false;
}

std::vector<std::string> reconcile_submissions(Session& session) {
  store::AppStore& store = session.store();
  store::ListFilter filter;
  filter.state = model::AppState::kUnsubmitted;
  std::vector<std::string> settled;
  for (const store::AppRecord& record : store.list(filter)) {
    if (!submitter_gone(record)) continue;
    const std::optional<pid_t> submitter = submitter_of(record.msg);
    const std::string died = "its submitter (sortie pid " + std::to_string(*submitter) +
                             ") died before confirming the submission";
    try {
      auto scheduler = session.scheduler(record.scheduler, record.session);
      model::AppStatus status;
      std::string outcome;
      const std::optional<std::string> json = scheduler->describe(record.app_id);
      if (json) {
        status = model::status_from_json(*json, scheduler->context());
        outcome = record.scheduler + " reports it " + model::to_string(status.state);
      } else {
        status.app_id = record.app_id;
        status.state = model::AppState::kFailed;
        status.msg =
            "submission interrupted: " + died + ", before " + record.scheduler + " accepted it";
        outcome = record.scheduler + " never got it, recorded FAILED";
      }
      // The submitter may have confirmed the record after the list and exited before its pid was
      // checked: the store judges the record again under its lock, and leaves a confirmed one.
      if (store.settle_submission(record, status, !json)) {
        settled.push_back("app " + record.handle + ": " + died + "; " + outcome);
      }
    } catch (const Error&) {
      // Left UNSUBMITTED: the next command tries again.
    }
  }
  return settled;
}

}  // namespace sortie::session
