// Vertex AI JobState -> sortie AppState, and the sortie.status/1 payload of a CustomJob.
#ifndef SORTIE_VERTEX_JOB_STATUS_HPP
#define SORTIE_VERTEX_JOB_STATUS_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <sortie/app_state.hpp>
#include <string>
#include <string_view>

namespace sortie::vertex {

// Every JobState of google.cloud.aiplatform.v1 has an entry; an absent or unknown state is
// UNKNOWN. QUEUED/PENDING/PAUSED -> PENDING, RUNNING/CANCELLING/UPDATING -> RUNNING,
// SUCCEEDED -> SUCCEEDED, FAILED/EXPIRED/PARTIALLY_SUCCEEDED -> FAILED, CANCELLED -> CANCELLED.
AppState app_state_for(std::string_view job_state);

// Nanoseconds since the epoch of an RFC 3339 timestamp; nullopt when text is not one.
std::optional<int64_t> parse_rfc3339_ns(std::string_view text);

// The Cloud Console page of a job ("projects/P/locations/L/customJobs/ID").
std::string console_url(const std::string& job_name);

// sortie.status/1 for a CustomJob as GET returns it: one role per worker pool (named by its
// SORTIE_ROLE_NAME variable), msg = the API's error message or what a non-obvious state means.
std::string status_payload(const std::string& app_id, const rapidjson::Value& job);

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_JOB_STATUS_HPP
