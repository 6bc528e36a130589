#include "local_scheduler.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <sortie/app_list.hpp>

#include "app_notify.hpp"
#include "app_watch.hpp"
#include "file_util.hpp"
#include "json_fields.hpp"
#include "launch_request.hpp"
#include "log_stream.hpp"
#include "port_leases.hpp"
#include "process_info.hpp"
#include "run_options.hpp"
#include "runtime_dir.hpp"
#include "start_failure.hpp"
#include "submit_lock.hpp"
#include "supervisor_launch.hpp"

namespace sortie::local {
namespace {

SchedulerContext read_config(std::string_view config, ImageMode mode) {
  const std::string what = "sortie.scheduler_config/1";
  const rapidjson::Document document = plugins_common::parse_object(config, what);
  SchedulerContext context;
  context.mode = mode;
  context.scheduler_name = plugins_common::string_member(
      document, "scheduler", what, mode == ImageMode::kCwd ? "local_cwd" : "local_dir");
  context.session = plugins_common::string_member(document, "session", what, "default");
  context.state_dir = plugins_common::string_member(document, "state_dir", what);
  if (context.state_dir.empty() || context.state_dir[0] != '/') {
    throw Error::invalid_argument(context.scheduler_name + ": " + what +
                                  " member 'state_dir' must be an absolute path");
  }
  make_directories(context.state_dir);
  return context;
}

// Signals the supervisor only if `pid` is still the process that started at `start_time`.
bool signal_supervisor(const Supervision& supervisor, int signal) {
  const auto pid = static_cast<pid_t>(supervisor.pid.value_or(0));
#ifdef SYS_pidfd_open
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) {
    // The pidfd pins the process, so the check below cannot race with pid reuse.
    const bool same = is_same_process_running(pid, supervisor.start_time);
    const bool sent = same && ::syscall(SYS_pidfd_send_signal, fd, signal, nullptr, 0) == 0;
    ::close(fd);
    return sent;
  }
#endif
  return is_same_process_running(pid, supervisor.start_time) && ::kill(pid, signal) == 0;
}

int64_t monotonic_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

LocalScheduler::LocalScheduler(std::string_view config, ImageMode mode)
    : context_(read_config(config, mode)), registry_(context_.scheduler_name, context_.state_dir) {}

std::string LocalScheduler::run_options() { return run_options_payload(context_.mode); }

std::string LocalScheduler::dryrun(std::string_view input) { return build_dryrun(input, context_); }

std::string LocalScheduler::schedule(std::string_view request_text) {
  const std::string what = "sortie.dryrun/1";
  const rapidjson::Document document = plugins_common::parse_object(request_text, what);
  const std::string app_id = plugins_common::string_member(document, "app_id", what);
  const rapidjson::Value* request_value = plugins_common::object_member(document, "request", what);
  if (request_value == nullptr) {
    throw Error::invalid_argument(what + ": member 'request' is required");
  }
  LaunchRequest request = read_launch_request(*request_value, what + " request");
  if (request.app_id != app_id) {
    throw Error::invalid_argument(what + ": app_id '" + app_id + "' differs from the request's '" +
                                  request.app_id + "'; schedule the document dryrun() wrote");
  }
  check_path_safe_id(app_id, "app id");

  make_directories(parent_directory(request.app_dir));
  if (::mkdir(request.app_dir.c_str(), 0700) != 0) {  // commands, env and logs: private
    if (errno == EEXIST) {
      throw Error::already_exists(context_.scheduler_name + ": app directory '" + request.app_dir +
                                  "' already exists; dry-run again for a fresh app id");
    }
    throw_errno("cannot create app directory '" + request.app_dir + "'");
  }
  // Held until the supervisor records itself (submit_lock.hpp), so that a reader can tell a
  // submission under way from one killed part-way.
  const int lock_fd = lock_for_submission(request.app_dir);
  struct CloseLock {
    int fd;
    ~CloseLock() { ::close(fd); }
  } close_lock{lock_fd};
  starts_.reap_finished();
  // Started first, told to go once the files below are written (start_signal.hpp); if writing
  // them fails, the signal closes unsent and the starter exits without touching the app.
  StartSignal start = starts_.start(request.app_dir, lock_fd, request.inherit_environment);
  create_notify_fifo(create_runtime_dir(request.app_dir, app_id));
  if (uses_free_port(request)) {
    // Chosen now, not at dryrun, so the port is free when the app starts.
    substitute_free_port(request, lease_free_port(context_.state_dir, request.app_dir, registry_));
    rapidjson::StringBuffer buffer;
    plugins_common::JsonWriter writer(buffer);
    write_launch_request(writer, request);
    write_file_atomically(request.app_dir + "/request.json",
                          std::string_view(buffer.GetString(), buffer.GetSize()));
  } else {
    write_file_atomically(request.app_dir + "/request.json",
                          plugins_common::to_json_text(*request_value));
  }
  LocalApp app = status_before_start(request);
  registry_.store_status(request.app_dir, app);
  registry_.register_app(app_id, request.app_dir);
  try {
    start.go();
  } catch (const Error& error) {
    app.status.state = AppState::kFailed;
    app.status.msg = error.what();
    registry_.store_status(request.app_dir, app);
    throw;
  }
  // Returned only with a supervisor on record: a failure the starter could not record (a full
  // disk) has no other way to the caller.
  const std::optional<std::string> answer = start.await_answer();
  if (answer && answer->empty()) return app_id;
  if (!answer) {
    starts_.wait_for(request.app_dir);  // killed: reaping records why
    const AppStatus recorded = registry_.read_recorded_status(request.app_dir).status;
    throw Error::unavailable(context_.scheduler_name + ": app '" + app_id + "' did not start: " +
                             (is_terminal(recorded.state)
                                  ? recorded.msg
                                  : "its supervisor's starter ended without a word; see '" +
                                        request.app_dir + "/supervisor.log'"));
  }
  const Error failure = decode_start_failure(*answer);
  throw Error(failure.code(),
              context_.scheduler_name + ": app '" + app_id + "' did not start: " + failure.what());
}

std::string LocalScheduler::describe(std::string_view app_id) {
  starts_.reap_finished();
  const std::string dir = registry_.app_dir(app_id);
  return to_status_payload(registry_.load_status_from_dir(dir), "file://" + dir);
}

std::string LocalScheduler::list(std::string_view filter_text) {
  starts_.reap_finished();
  const std::string session = read_list_filter(filter_text).session;
  std::vector<ListedApp> apps;
  for (const std::string& app_id : registry_.app_ids()) {
    LocalApp app;
    try {
      app = registry_.load_status(app_id);
    } catch (const Error&) {
      // A registered app whose directory was removed (e.g. log_dir deleted) is still listed.
      app.status.state = AppState::kUnknown;
    }
    if (!session.empty() && app.session != session) continue;
    apps.push_back({app_id, app.name, app.status.state});
  }
  return write_app_list(apps);
}

void LocalScheduler::cancel(std::string_view app_id) {
  const std::string dir = registry_.app_dir(app_id);
  LocalApp app = registry_.read_recorded_status(dir);
  if (is_terminal(app.status.state)) return;
  if (!app.supervisor.pid) {
    // Submitted by another process whose supervisor is still starting: leave a request it checks
    // right after recording itself, then look again in case it recorded itself meanwhile.
    write_file_atomically(cancel_request_path(runtime_dir_of(dir)), "");
    app = registry_.read_recorded_status(dir);
    if (is_terminal(app.status.state) || !app.supervisor.pid) return;
  }
  if (signal_supervisor(app.supervisor, SIGTERM)) return;
  app = registry_.read_recorded_status(dir);  // it may have just ended by itself
  if (is_terminal(app.status.state)) return;
  end_leftover_replicas(app, dir, AppState::kCancelled,
                        "cancelled; supervisor (pid " +
                            std::to_string(app.supervisor.pid.value_or(0)) +
                            ") was gone, so cancel killed the replicas' process groups");
  registry_.store_status(dir, app);
  retire_runtime_dir(dir, runtime_dir_of(dir));  // what the supervisor would have done
}

std::string LocalScheduler::wait(std::string_view app_id, std::string_view known_state,
                                 int64_t timeout_ms) {
  starts_.reap_finished();
  const std::string dir = registry_.app_dir(app_id);
  AppWatch watch(dir);
  const int64_t deadline = monotonic_ms() + timeout_ms;
  for (;;) {
    const LocalApp app = registry_.load_status_from_dir(dir);
    watch.watch_supervisor(app.supervisor);
    const int64_t remaining = deadline - monotonic_ms();
    // A terminal state never changes again (and its runtime files are gone: runtime_dir.hpp).
    if (known_state.empty() || app_state_name(app.status.state) != known_state ||
        is_terminal(app.status.state) || (timeout_ms >= 0 && remaining <= 0)) {
      return to_status_payload(app, "file://" + dir);
    }
    if (watch.wait(timeout_ms < 0 ? -1 : remaining) == AppWatch::Wake::kSignal) {
      return to_status_payload(registry_.load_status_from_dir(dir), "file://" + dir);
    }
  }
}

std::unique_ptr<LogStream> LocalScheduler::log_open(std::string_view app_id,
                                                    std::string_view request) {
  return std::make_unique<LocalLogStream>(registry_, registry_.app_dir(app_id), request);
}

}  // namespace sortie::local
