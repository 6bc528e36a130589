// log_open()/log_next() of the slurm scheduler (payloads.md P-10): whole lines of the replicas'
// log files (replica_files.hpp), every attempt in turn, with the time and stream each line was
// written with, merged across replicas by time. Reads the job directory, so it works from any
// process and working directory. Only regular files are read (a job can replace its files), and
// lines longer than L-26 are cut (docs/limits.md).
#ifndef SORTIE_SLURM_LOG_STREAM_HPP
#define SORTIE_SLURM_LOG_STREAM_HPP

#include <cstdint>
#include <fstream>
#include <functional>
#include <optional>
#include <sortie/plugin.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "batch_plan.hpp"

namespace sortie::slurm {

class SlurmLogStream : public LogStream {
 public:
  // request: "sortie.log_request/1"; app_ended says the job is terminal (for follow). Throws
  // NOT_FOUND for an unknown role or replica.
  SlurmLogStream(const BatchPlan& plan, std::string_view request, std::function<bool()> app_ended);

  bool next(int64_t timeout_ms, const LogSink& sink) override;

 private:
  struct Cursor {
    std::string role;
    std::string ledger;  // of the job running the role
    uint32_t replica = 0;
    int64_t attempt = 0;
    std::ifstream data;
    std::ifstream times;
    std::streampos data_at = 0;
    std::streampos times_at = 0;
    bool ready = false;
    std::string line;
    int64_t timestamp_ns = 0;
    int32_t stream = SORTIE_STREAM_STDOUT;
    bool done = false;
  };
  bool advance(Cursor& cursor, bool ended);
  bool read_line(Cursor& cursor);
  // The next line of the attempt's metrics file, which has no time file: a line without its
  // newline is whole only once `ended`.
  bool read_metrics_line(Cursor& cursor, bool ended);
  void open_attempt(Cursor& cursor);

  std::string job_dir_;
  size_t max_line_;   // docs/limits.md L-26: longer lines are cut
  std::string file_;  // stdout.log, stderr.log, combined.log or the metrics file
  bool metrics_ = false;
  std::vector<Cursor> cursors_;
  std::optional<int64_t> since_;
  std::optional<int64_t> until_;
  bool follow_ = false;
  std::function<bool()> app_ended_;
};

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_LOG_STREAM_HPP
