// The `vertex` scheduler (also registered as `caip`, XManager's old name): runs an app as one
// Vertex AI CustomJob, one worker pool per role (docs/vertex-scheduler.md).
#ifndef SORTIE_VERTEX_VERTEX_SCHEDULER_HPP
#define SORTIE_VERTEX_VERTEX_SCHEDULER_HPP

#include <map>
#include <memory>
#include <sortie/plugin.hpp>
#include <string>

#include "app_records.hpp"
#include "vertex_api.hpp"

namespace sortie::vertex {

class VertexScheduler final : public Scheduler {
 public:
  explicit VertexScheduler(std::string_view config);

  std::string run_options() override;
  std::string dryrun(std::string_view input) override;
  std::string schedule(std::string_view request) override;
  std::string describe(std::string_view app_id) override;
  std::string list(std::string_view filter) override;
  void cancel(std::string_view app_id) override;
  // Refuses with a link to the job's logs in Cloud Logging, where Vertex AI writes them.
  std::unique_ptr<LogStream> log_open(std::string_view app_id, std::string_view request) override;

 private:
  // One client per connection, so tokens and TCP connections are reused between calls.
  VertexApi& api_for(const Connection& connection);

  std::string session_;
  AppRecords records_{""};
  std::map<std::string, std::unique_ptr<VertexApi>> apis_;
};

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_VERTEX_SCHEDULER_HPP
