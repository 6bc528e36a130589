#include "app_index.hpp"

#include <sortie/error.hpp>

namespace sortie::slurm {

const AppIndex::Entry* AppIndex::meet(const std::string& app_id) {
  if (const auto known = apps_.find(app_id); known != apps_.end()) return &known->second;
  ++record_reads_;
  std::optional<AppRecord> record = records_.find(app_id);
  if (!record) return nullptr;  // not recorded (yet): asked again next time
  Entry entry{std::move(*record), true};
  for (size_t job = 0; job < entry.record.job_ids.size(); ++job) {
    entry.ended = entry.ended && AppRecords::final_state(entry.record.plan, job).has_value();
  }
  return &apps_.emplace(app_id, std::move(entry)).first->second;
}

const AppRecord& AppIndex::load(std::string_view app_id) {
  const Entry* entry = meet(std::string(app_id));
  if (entry == nullptr) throw Error::not_found("slurm: no app '" + std::string(app_id) + "'");
  return entry->record;
}

std::vector<const AppRecord*> AppIndex::all() {
  listed_ = true;
  std::vector<const AppRecord*> records;
  for (const std::string& app_id : records_.app_ids()) {
    try {
      if (const Entry* entry = meet(app_id)) records.push_back(&entry->record);
    } catch (const Error&) {
      // A job directory removed by hand: the app is gone, not an error for the others.
    }
  }
  return records;
}

std::vector<std::string> AppIndex::unfinished_jobs(std::string_view session) {
  if (!listed_) all();
  std::vector<std::string> jobs;
  for (const auto& [app_id, entry] : apps_) {
    if (entry.ended || entry.record.plan.session != session) continue;
    jobs.insert(jobs.end(), entry.record.job_ids.begin(), entry.record.job_ids.end());
  }
  return jobs;
}

void AppIndex::mark_ended(std::string_view app_id) {
  if (const auto known = apps_.find(app_id); known != apps_.end()) known->second.ended = true;
}

bool AppIndex::has_ended(std::string_view app_id) const {
  const auto known = apps_.find(app_id);
  return known != apps_.end() && known->second.ended;
}

}  // namespace sortie::slurm
