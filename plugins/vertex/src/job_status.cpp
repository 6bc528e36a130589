#include "job_status.hpp"

#include <cstdio>
#include <ctime>
#include <sortie/app_status.hpp>

#include "custom_job_builder.hpp"
#include "json_fields.hpp"

namespace sortie::vertex {
namespace {

struct StateEntry {
  const char* job_state;
  AppState app_state;
  const char* explanation;  // added to msg; "" when the state speaks for itself
};

constexpr StateEntry kStates[] = {
    {"JOB_STATE_UNSPECIFIED", AppState::kUnknown, "Vertex AI reports no state"},
    {"JOB_STATE_QUEUED", AppState::kPending, ""},
    {"JOB_STATE_PENDING", AppState::kPending, ""},
    {"JOB_STATE_RUNNING", AppState::kRunning, ""},
    {"JOB_STATE_SUCCEEDED", AppState::kSucceeded, ""},
    {"JOB_STATE_FAILED", AppState::kFailed, ""},
    {"JOB_STATE_CANCELLING", AppState::kRunning, "cancelling"},
    {"JOB_STATE_CANCELLED", AppState::kCancelled, ""},
    {"JOB_STATE_PAUSED", AppState::kPending, "paused; it runs again when resumed in Vertex AI"},
    {"JOB_STATE_EXPIRED", AppState::kFailed,
     "expired: it did not start before its scheduling deadline (scheduling.maxWaitDuration)"},
    {"JOB_STATE_UPDATING", AppState::kRunning, "updating"},
    {"JOB_STATE_PARTIALLY_SUCCEEDED", AppState::kFailed,
     "partially succeeded: some replicas failed"},
};

const StateEntry* find_state(std::string_view job_state) {
  for (const StateEntry& entry : kStates) {
    if (job_state == entry.job_state) return &entry;
  }
  return nullptr;
}

std::string role_name_of(const rapidjson::Value& pool, size_t index) {
  const rapidjson::Value* container = plugins_common::find_member(pool, "containerSpec");
  const rapidjson::Value* env =
      container ? plugins_common::find_member(*container, "env") : nullptr;
  if (env != nullptr && env->IsArray()) {
    for (const rapidjson::Value& entry : env->GetArray()) {
      if (plugins_common::string_member(entry, "name", "env") == kRoleNameEnv) {
        return plugins_common::string_member(entry, "value", "env");
      }
    }
  }
  return "workerpool" + std::to_string(index);
}

int64_t replica_count_of(const rapidjson::Value& pool) {
  const rapidjson::Value* count = plugins_common::find_member(pool, "replicaCount");
  if (count == nullptr) return 1;
  if (count->IsString()) return std::atoll(count->GetString());
  return count->IsInt64() ? count->GetInt64() : 1;
}

// A job time ("startTime") in ns since the epoch; nullopt while the job has none.
std::optional<int64_t> job_time(const rapidjson::Value& job, const char* job_key) {
  const rapidjson::Value* text = plugins_common::find_member(job, job_key);
  if (text == nullptr || !text->IsString()) return std::nullopt;
  return parse_rfc3339_ns(text->GetString());
}

}  // namespace

AppState app_state_for(std::string_view job_state) {
  const StateEntry* entry = find_state(job_state);
  return entry == nullptr ? AppState::kUnknown : entry->app_state;
}

std::optional<int64_t> parse_rfc3339_ns(std::string_view text) {
  const std::string s(text);
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed != 19) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  size_t pos = 19;
  int64_t fraction_ns = 0;
  if (pos < s.size() && s[pos] == '.') {
    int64_t scale = 100000000;
    for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos) {
      fraction_ns += (s[pos] - '0') * scale;
      scale /= 10;
    }
  }
  int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int hours = 0, minutes = 0;
    if (std::sscanf(s.c_str() + pos + 1, "%2d:%2d", &hours, &minutes) != 2) return std::nullopt;
    offset_s = (s[pos] == '+' ? 1 : -1) * (hours * 3600 + minutes * 60);
  } else if (pos >= s.size() || (s[pos] != 'Z' && s[pos] != 'z')) {
    return std::nullopt;
  }
  return (static_cast<int64_t>(timegm(&tm)) - offset_s) * 1000000000 + fraction_ns;
}

std::string console_url(const std::string& job_name) {
  // projects/P/locations/L/customJobs/ID
  std::string parts[6];
  size_t start = 0;
  for (int i = 0; i < 6; ++i) {
    const size_t slash = job_name.find('/', start);
    parts[i] =
        job_name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return "https://console.cloud.google.com/ai/platform/locations/" + parts[3] + "/training/" +
         parts[5] + "?project=" + parts[1];
}

std::string status_payload(const std::string& app_id, const rapidjson::Value& job) {
  const std::string job_state =
      plugins_common::string_member(job, "state", "CustomJob", "JOB_STATE_UNSPECIFIED");
  const StateEntry* entry = find_state(job_state);
  std::string msg;
  if (entry == nullptr) msg = "unknown Vertex AI state " + job_state;
  if (entry != nullptr && *entry->explanation != '\0') msg = entry->explanation;
  std::string structured_error;
  if (const rapidjson::Value* error = plugins_common::find_member(job, "error"); error != nullptr) {
    const std::string message = plugins_common::string_member(*error, "message", "CustomJob error");
    if (!message.empty()) msg += (msg.empty() ? "" : ": ") + message;
    structured_error = plugins_common::to_json_text(*error);
  }

  AppStatus status;
  status.app_id = app_id;
  status.state = entry == nullptr ? AppState::kUnknown : entry->app_state;
  status.msg = msg;
  status.ui_url = console_url(plugins_common::string_member(job, "name", "CustomJob"));
  status.structured_error_msg = structured_error;
  const rapidjson::Value* spec = plugins_common::find_member(job, "jobSpec");
  const rapidjson::Value* pools =
      spec ? plugins_common::find_member(*spec, "workerPoolSpecs") : nullptr;
  if (pools != nullptr && pools->IsArray()) {
    for (rapidjson::SizeType i = 0; i < pools->Size(); ++i) {
      RoleStatus& role = status.roles.emplace_back();
      role.role = role_name_of((*pools)[i], i);
      for (int64_t id = 0; id < replica_count_of((*pools)[i]); ++id) {
        ReplicaStatus& replica = role.replicas.emplace_back();
        replica.id = id;
        replica.state = status.state;
        replica.started_at = job_time(job, "startTime");
        replica.finished_at = job_time(job, "endTime");
      }
    }
  }
  status.metadata = {
      {"vertex.job_name", json_string(plugins_common::string_member(job, "name", "CustomJob"))},
      {"vertex.job_state", json_string(job_state)}};
  return write_status(status);
}

}  // namespace sortie::vertex
