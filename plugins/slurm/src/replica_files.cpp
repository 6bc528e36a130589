#include "replica_files.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sortie::slurm {
namespace {

std::FILE* open_append(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "ae");
  if (file == nullptr) std::perror(("sortie-slurm-task: " + path).c_str());
  return file;
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
  }
  std::filesystem::rename(temporary, path);
}

std::string hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  const char* slurm_node = std::getenv("SLURMD_NODENAME");  // a virtual node shares the host
  return slurm_node != nullptr ? slurm_node : name;
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string attempt_dir(const std::string& job_dir, std::string_view role, int64_t replica,
                        int64_t attempt) {
  return job_dir + "/logs/" + std::string(role) + "/" + std::to_string(replica) + "/attempt-" +
         std::to_string(attempt);
}

ReplicaOutput::ReplicaOutput(std::string dir) : dir_(std::move(dir)) {
  std::filesystem::create_directories(dir_);
  stdout_ = {open_append(dir_ + "/stdout.log"), open_append(dir_ + "/stdout.log.ts")};
  stderr_ = {open_append(dir_ + "/stderr.log"), open_append(dir_ + "/stderr.log.ts")};
  combined_ = {open_append(dir_ + "/combined.log"), open_append(dir_ + "/combined.log.ts")};
}

ReplicaOutput::~ReplicaOutput() {
  for (File* file : {&stdout_, &stderr_, &combined_}) {
    if (file->data != nullptr) std::fclose(file->data);
    if (file->times != nullptr) std::fclose(file->times);
  }
}

void ReplicaOutput::started(int64_t pid) {
  write_atomically(dir_ + "/started",
                   hostname() + " " + std::to_string(pid) + " " + std::to_string(now_ns()) + "\n");
}

void ReplicaOutput::append_line(ReplicaStream stream, std::string_view line) {
  const std::string stamp =
      std::to_string(now_ns()) + " " + std::to_string(static_cast<int>(stream)) + "\n";
  for (File* file : {stream == ReplicaStream::kStdout ? &stdout_ : &stderr_, &combined_}) {
    if (file->data == nullptr || file->times == nullptr) continue;
    std::fwrite(line.data(), 1, line.size(), file->data);
    std::fflush(file->data);
    // The time goes after the data: a reader that sees a time line has the line's bytes.
    std::fputs(stamp.c_str(), file->times);
    std::fflush(file->times);
  }
}

void ReplicaOutput::write(ReplicaStream stream, std::string_view bytes) {
  std::string& unfinished = unfinished_[static_cast<int>(stream) - 1];
  unfinished.append(bytes);
  size_t start = 0;
  for (size_t newline = unfinished.find('\n'); newline != std::string::npos;
       newline = unfinished.find('\n', start)) {
    append_line(stream, std::string_view(unfinished).substr(start, newline + 1 - start));
    start = newline + 1;
  }
  unfinished.erase(0, start);
}

void ReplicaOutput::end(ReplicaStream stream) {
  std::string& unfinished = unfinished_[static_cast<int>(stream) - 1];
  if (!unfinished.empty()) append_line(stream, unfinished);
  unfinished.clear();
}

void ReplicaOutput::finished(int exit_code, int signal) {
  write_atomically(dir_ + "/exit", std::to_string(exit_code) + " " + std::to_string(signal) + " " +
                                       std::to_string(now_ns()) + "\n");
}

ReplicaRecord read_replica_record(const std::string& attempt_dir) {
  ReplicaRecord record;
  std::ifstream started(attempt_dir + "/started");
  int64_t pid = 0;
  int64_t at = 0;
  if (started >> record.host >> pid >> at) record.started_at = at;
  std::ifstream exit(attempt_dir + "/exit");
  int64_t code = 0;
  if (exit >> code >> record.signal >> at) {
    record.exit_code = code;
    record.finished_at = at;
  }
  return record;
}

}  // namespace sortie::slurm
