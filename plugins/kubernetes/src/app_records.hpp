// What this machine remembers about the apps it submitted, under the scheduler's state_dir: the
// kubeconfig and context each was submitted with (so describe, cancel and log reach the same
// cluster from any later process, rule ABI-8) and whether it was cancelled (its objects are gone
// afterwards, so describe reports CANCELLED from here). Never any credential.
#ifndef SORTIE_KUBERNETES_APP_RECORDS_HPP
#define SORTIE_KUBERNETES_APP_RECORDS_HPP

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kubeconfig.hpp"

namespace sortie::kubernetes {

struct AppRecord {
  ConnectionChoice connection;
  bool cancelled = false;
};

class AppRecords {
 public:
  explicit AppRecords(std::string state_dir);

  void save(const std::string& app_id, const AppRecord& record) const;
  std::optional<AppRecord> load(const std::string& app_id) const;
  std::vector<std::pair<std::string, AppRecord>> all() const;

 private:
  std::string dir_;
};

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_APP_RECORDS_HPP
