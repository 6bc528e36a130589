// What one attempt of one replica leaves in <job_dir>/logs/<role>/<replica>/attempt-<n>/,
// written by sortie-slurm-task on the node and read by the scheduler from any process:
//   stdout.log, stderr.log, combined.log  the output, verbatim; combined.log holds whole lines of
//                                         both streams in the order they were completed;
//   <log>.ts                              one "<ns since epoch> <1|2>" text line per line of <log>
//                                         (its time and stream), so since/until need no guessing;
//   started                               "<host> <pid> <ns>" when the program started;
//   exit                                  "<exit code> <signal> <ns>" once it ended (atomic).
#ifndef SORTIE_SLURM_REPLICA_FILES_HPP
#define SORTIE_SLURM_REPLICA_FILES_HPP

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace sortie::slurm {

enum class ReplicaStream { kStdout = 1, kStderr = 2 };

int64_t now_ns();

// Writer side (the task on the node).
class ReplicaOutput {
 public:
  explicit ReplicaOutput(std::string dir);  // creates dir and its parents
  ~ReplicaOutput();
  ReplicaOutput(const ReplicaOutput&) = delete;
  ReplicaOutput& operator=(const ReplicaOutput&) = delete;

  void started(int64_t pid);
  void write(ReplicaStream stream, std::string_view bytes);
  void end(ReplicaStream stream);  // flushes a last line without '\n'
  void finished(int exit_code, int signal);

 private:
  struct File {
    std::FILE* data = nullptr;
    std::FILE* times = nullptr;
  };
  void append_line(ReplicaStream stream, std::string_view line);
  std::string dir_;
  File stdout_;
  File stderr_;
  File combined_;
  std::string unfinished_[2];
};

// Reader side: what the scheduler knows about one attempt of a replica.
struct ReplicaRecord {
  std::string host;
  std::optional<int64_t> started_at;
  std::optional<int64_t> exit_code;
  int64_t signal = 0;
  std::optional<int64_t> finished_at;
};

ReplicaRecord read_replica_record(const std::string& attempt_dir);

// The file of an attempt's directory a replica's $SORTIE_METRICS_FILE names, served as the log
// stream "metrics" (docs/experiments.md, "Measurements").
inline constexpr const char* kMetricsFileName = "metrics.jsonl";

std::string attempt_dir(const std::string& job_dir, std::string_view role, int64_t replica,
                        int64_t attempt);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_REPLICA_FILES_HPP
