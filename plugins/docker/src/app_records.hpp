// What Docker itself cannot remember about an app, kept under the scheduler's state_dir as
// <state_dir>/apps/<app_id>.json: its role layout (so replicas that have no container yet still
// show), a failure that happened before any container ran (missing image, create refused), the
// final status of a cancelled app (whose containers are gone) and the replicas stopped because
// another one failed. Containers and their labels stay the primary source of truth.
#ifndef SORTIE_DOCKER_APP_RECORDS_HPP
#define SORTIE_DOCKER_APP_RECORDS_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app_plan.hpp"

namespace sortie::docker {

struct AppRecord {
  std::string app_id;
  std::string name;
  std::string session;
  std::vector<RoleLayout> roles;
  std::string failure;       // why the app FAILED before or while its containers were created
  std::string final_status;  // sortie.status/1 of a cancelled app
  std::vector<std::string> stopped;  // containers stopped because another replica failed
};

class AppRecords {
 public:
  explicit AppRecords(std::string state_dir);

  // Writes atomically (temporary file + rename).
  void store(const AppRecord& record) const;
  std::optional<AppRecord> load(std::string_view app_id) const;
  std::vector<std::string> app_ids() const;

 private:
  std::string path(std::string_view app_id) const;
  std::string dir_;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_APP_RECORDS_HPP
