// File: core/plugin_host/plugin_clients.cpp
//
// Host-side handles over plugin components: every call checks the status and the payload the
// plugin answered, so callers see either a valid document or an Error naming the component.
#include <exception>
#include <sortie/model/error.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <string>
#include <utility>

#include "app_id_check.hpp"
#include "plugin_calls.hpp"

namespace sortie::plugin_host {
namespace {

using detail::as_str;
using detail::check_payload;
using detail::check_status;
using detail::invoke_printing;
using detail::StringSink;

// What LogReader::next hands to the plugin's log sink.
struct LineDelivery {
  const std::function<void(const LogLineView&)>* on_line;
  std::exception_ptr error;  // thrown by on_line; rethrown once the plugin has returned
};

void deliver_line(void* ctx, const sortie_log_line* line) {
  auto* delivery = static_cast<LineDelivery*>(ctx);
  if (delivery->error || line == nullptr) return;
  using L = sortie_log_line;
  LogLineView view;
  if (SORTIE_HAS_MEMBER(line, L, stream)) view.stream = line->stream;
  if (SORTIE_HAS_MEMBER(line, L, role) && line->role.ptr != nullptr) {
    view.role = std::string_view(line->role.ptr, line->role.len);
  }
  if (SORTIE_HAS_MEMBER(line, L, replica_id)) view.replica_id = line->replica_id;
  if (SORTIE_HAS_MEMBER(line, L, timestamp_ns)) view.timestamp_ns = line->timestamp_ns;
  if (SORTIE_HAS_MEMBER(line, L, data) && line->data.ptr != nullptr) {
    view.data = std::string_view(line->data.ptr, line->data.len);
  }
  try {
    (*delivery->on_line)(view);
  } catch (...) {
    // Unwinding through the plugin's frames would break ABI-6 from the host's side.
    delivery->error = std::current_exception();
  }
}

}  // namespace

LogReader::LogReader(const sortie_scheduler_vtable* vtable, sortie_log_stream* stream,
                     std::string context, int32_t print_level)
    : vtable_(vtable), stream_(stream), context_(std::move(context)), print_level_(print_level) {}

LogReader::~LogReader() { vtable_->log_close(stream_); }

bool LogReader::next(int64_t timeout_ms, const std::function<void(const LogLineView&)>& on_line) {
  LineDelivery delivery{&on_line, nullptr};
  const sortie_log_sink sink{&delivery, &deliver_line};
  int32_t eof = 0;
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "log_next", [&] {
    return vtable_->log_next(stream_, timeout_ms, &sink, &eof, err.get());
  });
  if (delivery.error) std::rethrow_exception(delivery.error);
  check_status(context_, "log_next", status, err.text());
  return eof == 0;
}

SchedulerClient::SchedulerClient(const sortie_scheduler_vtable* vtable, sortie_scheduler* self,
                                 std::string context, int32_t print_level)
    : vtable_(vtable), self_(self), context_(std::move(context)), print_level_(print_level) {}

SchedulerClient::~SchedulerClient() { vtable_->destroy(self_); }

std::string SchedulerClient::run_options() {
  StringSink out(limits::kPluginAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "run_options", [&] {
    return vtable_->run_options(self_, out.get(), err.get());
  });
  check_status(context_, "run_options", status, err.text());
  check_payload(context_, "run_options", out, "sortie.runopts/1");
  return out.text();
}

std::vector<model::RunOpt> SchedulerClient::declared_run_options() {
  const std::string payload = run_options();
  try {
    return model::parse_runopts(payload, "sortie.runopts/1");
  } catch (const Error& e) {
    detail::bad_payload(context_, "run_options", e.what());
  }
}

std::string SchedulerClient::dryrun(std::string_view input) {
  StringSink out(limits::kPluginAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "dryrun", [&] {
    return vtable_->dryrun(self_, as_str(input), out.get(), err.get());
  });
  check_status(context_, "dryrun", status, err.text());
  check_payload(context_, "dryrun", out, "sortie.dryrun/1");
  return out.text();
}

std::string SchedulerClient::schedule(std::string_view request) {
  StringSink out(limits::kAppIdBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "schedule", [&] {
    return vtable_->schedule(self_, as_str(request), out.get(), err.get());
  });
  check_status(context_, "schedule", status, err.text());
  if (out.cut()) {
    throw Error::internal(context_ + ": " +
                          limits::exceeded("the app id schedule wrote", limits::kAppIdBytes) +
                          "; this is a bug in the plugin");
  }
  detail::check_app_id(context_, out.text());
  return out.text();
}

bool SchedulerClient::can_schedule_batch() const {
  return SORTIE_HAS_MEMBER(vtable_, sortie_scheduler_vtable, schedule_batch) &&
         vtable_->schedule_batch != nullptr;
}

std::vector<std::string> SchedulerClient::schedule_batch(const std::vector<std::string>& requests) {
  if (!can_schedule_batch()) {
    throw Error::unimplemented(context_ + " does not support schedule_batch");
  }
  std::vector<sortie_str> inputs;
  for (const std::string& request : requests) inputs.push_back(as_str(request));
  // The app ids of a batch are bounded like a list answer (docs/limits.md L-10).
  StringSink out(limits::kListAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "schedule_batch", [&] {
    return vtable_->schedule_batch(self_, inputs.data(), inputs.size(), out.get(), err.get());
  });
  check_status(context_, "schedule_batch", status, err.text());
  if (out.cut()) {
    throw Error::internal(context_ + ": " +
                          limits::exceeded("the app ids schedule_batch wrote", out.limit()) +
                          "; this is a bug in the plugin");
  }
  std::vector<std::string> app_ids;
  const std::string& text = out.text();
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1) {
    app_ids.push_back(text.substr(start, end - start));
    detail::check_app_id(context_, app_ids.back());
  }
  if (app_ids.size() != requests.size()) {
    throw Error::internal(context_ + ": schedule_batch wrote " + std::to_string(app_ids.size()) +
                          " app ids for " + std::to_string(requests.size()) + " requests");
  }
  return app_ids;
}

std::optional<std::string> SchedulerClient::describe(std::string_view app_id) {
  StringSink out(limits::kStatusAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "describe", [&] {
    return vtable_->describe(self_, as_str(app_id), out.get(), err.get());
  });
  if (status == SORTIE_NOT_FOUND) return std::nullopt;
  check_status(context_, "describe", status, err.text());
  check_payload(context_, "describe", out, "sortie.status/1");
  return out.text();
}

std::string SchedulerClient::list(std::string_view filter) {
  if (!SORTIE_HAS_MEMBER(vtable_, sortie_scheduler_vtable, list) || vtable_->list == nullptr) {
    throw Error::unimplemented(context_ + " does not support list");
  }
  StringSink out(limits::kListAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "list", [&] {
    return vtable_->list(self_, as_str(filter), out.get(), err.get());
  });
  check_status(context_, "list", status, err.text());
  check_payload(context_, "list", out, "sortie.list/1");
  return out.text();
}

void SchedulerClient::cancel(std::string_view app_id) {
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "cancel", [&] {
    return vtable_->cancel(self_, as_str(app_id), err.get());
  });
  check_status(context_, "cancel", status, err.text());
}

bool SchedulerClient::can_cancel_batch() const {
  return SORTIE_HAS_MEMBER(vtable_, sortie_scheduler_vtable, cancel_batch) &&
         vtable_->cancel_batch != nullptr;
}

void SchedulerClient::cancel_batch(const std::vector<std::string>& app_ids) {
  if (!can_cancel_batch()) throw Error::unimplemented(context_ + " does not support cancel_batch");
  std::vector<sortie_str> inputs;
  for (const std::string& app_id : app_ids) inputs.push_back(as_str(app_id));
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "cancel_batch", [&] {
    return vtable_->cancel_batch(self_, inputs.data(), inputs.size(), err.get());
  });
  check_status(context_, "cancel_batch", status, err.text());
}

bool SchedulerClient::can_wait() const {
  return SORTIE_HAS_MEMBER(vtable_, sortie_scheduler_vtable, wait) && vtable_->wait != nullptr;
}

std::string SchedulerClient::wait(std::string_view app_id, std::string_view known_state,
                                  int64_t timeout_ms) {
  if (!can_wait()) throw Error::unimplemented(context_ + " does not support wait");
  StringSink out(limits::kStatusAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "wait", [&] {
    return vtable_->wait(self_, as_str(app_id), as_str(known_state), timeout_ms, out.get(),
                         err.get());
  });
  check_status(context_, "wait", status, err.text());
  check_payload(context_, "wait", out, "sortie.status/1");
  return out.text();
}

std::unique_ptr<LogReader> SchedulerClient::log_open(std::string_view app_id,
                                                     std::string_view request) {
  // Negotiation guaranteed that log_open, log_next and log_close come together.
  if (!SORTIE_HAS_MEMBER(vtable_, sortie_scheduler_vtable, log_close) ||
      vtable_->log_open == nullptr) {
    throw Error::unimplemented(context_ + " does not support log");
  }
  sortie_log_stream* stream = nullptr;
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "log_open", [&] {
    return vtable_->log_open(self_, as_str(app_id), as_str(request), &stream, err.get());
  });
  check_status(context_, "log_open", status, err.text());
  if (stream == nullptr) {
    throw Error::internal(context_ +
                          ": log_open succeeded but returned a NULL stream; "
                          "this is a bug in the plugin");
  }
  return std::make_unique<LogReader>(vtable_, stream, context_, print_level_);
}

ImageProviderClient::ImageProviderClient(const sortie_image_provider_vtable* vtable,
                                         sortie_image_provider* self, std::string context,
                                         int32_t print_level)
    : vtable_(vtable), self_(self), context_(std::move(context)), print_level_(print_level) {}

ImageProviderClient::~ImageProviderClient() { vtable_->destroy(self_); }

std::string ImageProviderClient::fetch(std::string_view role_json) {
  StringSink out(limits::kPluginAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "fetch", [&] {
    return vtable_->fetch(self_, as_str(role_json), out.get(), err.get());
  });
  check_status(context_, "fetch", status, err.text());
  check_payload(context_, "fetch", out, "sortie.image/1");
  return out.text();
}

PackagerClient::PackagerClient(const sortie_packager_vtable* vtable, sortie_packager* self,
                               std::string context, int32_t print_level)
    : vtable_(vtable), self_(self), context_(std::move(context)), print_level_(print_level) {}

PackagerClient::~PackagerClient() { vtable_->destroy(self_); }

std::string PackagerClient::package(std::string_view request_json) {
  StringSink out(limits::kPluginAnswerBytes);
  StringSink err;
  const sortie_status status = invoke_printing(print_level_, context_, "package", [&] {
    return vtable_->package(self_, as_str(request_json), out.get(), err.get());
  });
  check_status(context_, "package", status, err.text());
  check_payload(context_, "package", out, "sortie.package_result/1");
  return out.text();
}

}  // namespace sortie::plugin_host
