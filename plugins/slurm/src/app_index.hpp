// The apps one scheduler instance has met, each read from disk once (its record, plan and whether
// its jobs ended), so that describing N apps, however often, costs O(N) record reads: a watcher
// polling 50 apps reads 50 records, not 50 for every describe.
#ifndef SORTIE_SLURM_APP_INDEX_HPP
#define SORTIE_SLURM_APP_INDEX_HPP

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "app_records.hpp"

namespace sortie::slurm {

class AppIndex {
 public:
  explicit AppIndex(const AppRecords& records) : records_(records) {}

  // Throws NOT_FOUND naming the app.
  const AppRecord& load(std::string_view app_id);
  // Every recorded app: lists the directory, reads only the apps not met before.
  std::vector<const AppRecord*> all();
  // The jobs of the session's apps not known to have ended: what one squeue/sacct refresh asks
  // about. The first call meets every recorded app.
  std::vector<std::string> unfinished_jobs(std::string_view session);
  // Once an app is terminal, its jobs are asked about no more.
  void mark_ended(std::string_view app_id);
  bool has_ended(std::string_view app_id) const;

  int64_t record_reads() const { return record_reads_; }

 private:
  struct Entry {
    AppRecord record;
    bool ended = false;
  };
  const Entry* meet(const std::string& app_id);  // nullptr when there is no such app

  const AppRecords& records_;
  std::map<std::string, Entry, std::less<>> apps_;
  bool listed_ = false;
  int64_t record_reads_ = 0;
};

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_APP_INDEX_HPP
