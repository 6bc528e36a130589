// The kubernetes scheduler: runs apps as Jobs (or a Volcano Job, or a JobSet) through the
// API server's REST interface. describe, list, cancel and log work from the app id alone; the
// connection each app was submitted with is remembered under state_dir (app_records.hpp).
#ifndef SORTIE_KUBERNETES_KUBERNETES_SCHEDULER_HPP
#define SORTIE_KUBERNETES_KUBERNETES_SCHEDULER_HPP

#include <map>
#include <memory>
#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

#include "api_client.hpp"
#include "app_records.hpp"
#include "app_ref.hpp"

namespace sortie::kubernetes {

class KubernetesScheduler : public Scheduler {
 public:
  // config: "sortie.scheduler_config/1".
  explicit KubernetesScheduler(std::string_view config);

  std::string run_options() override;
  std::string dryrun(std::string_view input) override;
  std::string schedule(std::string_view request) override;
  std::string describe(std::string_view app_id) override;
  std::string list(std::string_view filter) override;
  void cancel(std::string_view app_id) override;
  std::unique_ptr<LogStream> log_open(std::string_view app_id, std::string_view request) override;

 private:
  ApiClient& client_for(const ConnectionChoice& choice);
  ConnectionChoice connection_of(const std::string& app_id) const;

  std::string session_;
  AppRecords records_;
  std::map<std::string, std::unique_ptr<ApiClient>> clients_;  // by kubeconfig + context
};

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_KUBERNETES_SCHEDULER_HPP
