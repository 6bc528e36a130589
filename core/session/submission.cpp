#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/session/session.hpp>
#include <sortie/session/submission.hpp>
#include <sstream>

namespace sortie::session {
namespace {

constexpr const char* kSubmittingPrefix = "submitting (sortie pid ";

// When `pid` started, in ns since the epoch (boot time + field 22 of /proc/PID/stat), or nullopt
// when it does not run.
std::optional<int64_t> process_started_at(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close_paren + 2));
  std::string field;
  for (int index = 3; index <= 22 && fields >> field; ++index) {
    if (index == 3 && (field == "Z" || field == "X")) return std::nullopt;
  }
  std::ifstream system_stat("/proc/stat");
  std::string line;
  int64_t boot_time = 0;
  while (std::getline(system_stat, line)) {
    if (line.rfind("btime ", 0) == 0) boot_time = std::strtoll(line.c_str() + 6, nullptr, 10);
  }
  const int64_t ticks = std::strtoll(field.c_str(), nullptr, 10);
  const int64_t per_second = ::sysconf(_SC_CLK_TCK);
  return boot_time * 1000000000 + ticks * (1000000000 / per_second);
}

// True while the process that recorded the submission at `submitted_at` runs (a pid reused by a
// process started later does not count).
bool submitter_running(pid_t pid, int64_t submitted_at) {
  const std::optional<int64_t> started = process_started_at(pid);
  // A second of slack: boot time and clock ticks are coarse.
  return started && *started <= submitted_at + 1000000000;
}

}  // namespace

std::string submitting_message() { return kSubmittingPrefix + std::to_string(::getpid()) + ")"; }

std::optional<pid_t> submitter_of(const std::string& msg) {
  const std::string prefix = kSubmittingPrefix;
  if (msg.rfind(prefix, 0) != 0) return std::nullopt;
  return static_cast<pid_t>(std::strtol(msg.c_str() + prefix.size(), nullptr, 10));
}

std::vector<std::string> reconcile_submissions(Session& session) {
  core::AppStore& store = session.store();
  core::ListFilter filter;
  filter.state = core::AppState::kUnsubmitted;
  std::vector<std::string> settled;
  for (const core::AppRecord& record : store.list(filter)) {
    const std::optional<pid_t> submitter = submitter_of(record.msg);
    if (!submitter || submitter_running(*submitter, record.submitted_at)) continue;
    const std::string died = "its submitter (sortie pid " + std::to_string(*submitter) +
                             ") died before confirming the submission";
    try {
      auto scheduler = session.scheduler(record.scheduler, record.session);
      core::AppStatus status;
      std::string outcome;
      if (const auto json = scheduler->describe(record.app_id)) {
        status = core::status_from_json(*json, scheduler->context());
        outcome = record.scheduler + " reports it " + core::to_string(status.state);
      } else {
        status.app_id = record.app_id;
        status.state = core::AppState::kFailed;
        status.msg =
            "submission interrupted: " + died + ", before " + record.scheduler + " accepted it";
        outcome = record.scheduler + " never got it, recorded FAILED";
      }
      store.record_status(record.handle, status);
      settled.push_back("app " + record.handle + ": " + died + "; " + outcome);
    } catch (const core::Error&) {
      // Left UNSUBMITTED: the next command tries again.
    }
  }
  return settled;
}

}  // namespace sortie::session
