// App ids and what the plugin remembers per app (rule ABI-8: any later process answers from the
// app id alone).
//
// An app id is "{project}:{location}:{job id}", so it names the CustomJob
// projects/{project}/locations/{location}/customJobs/{job id} by itself. The record under
// <state_dir>/apps/<app id>.json adds the connection the app was submitted with (endpoint,
// credential source, retries); without it the defaults apply (the regional endpoint, the default
// credential sources), so a process on another machine can still take the app over.
#ifndef SORTIE_VERTEX_APP_RECORDS_HPP
#define SORTIE_VERTEX_APP_RECORDS_HPP

#include <optional>
#include <string>
#include <vector>

#include "connection.hpp"

namespace sortie::vertex {

// "projects/P/locations/L/customJobs/ID" -> "P:L:ID". Throws UNAVAILABLE for another shape
// (the API answered something unexpected).
std::string app_id_for_job(const std::string& job_name);
// The inverse; throws NOT_FOUND for text that is not a vertex app id.
std::string job_name_for_app(const std::string& app_id);
// "projects/P/locations/L" of a job name.
std::string parent_of_job(const std::string& job_name);

struct AppRecord {
  std::string app_id;
  std::string job_name;
  Connection connection;
};

class AppRecords {
 public:
  explicit AppRecords(std::string state_dir) : dir_(std::move(state_dir) + "/apps") {}

  void save(const AppRecord& record) const;
  // The record, or one with the default connection for the job's location.
  AppRecord load(const std::string& app_id) const;
  // Every record, in no particular order.
  std::vector<AppRecord> all() const;

 private:
  std::string dir_;
};

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_APP_RECORDS_HPP
