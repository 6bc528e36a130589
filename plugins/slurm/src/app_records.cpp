#include "app_records.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sortie/error.hpp>
#include <sstream>

namespace sortie::slurm {
namespace {

void write_file(const std::string& path, const std::string& content, bool executable = false) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) throw Error::internal("slurm: cannot write '" + path + "'");
  }
  if (executable) ::chmod(temporary.c_str(), 0755);
  std::filesystem::rename(temporary, path);
}

}  // namespace

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

AppRecords::AppRecords(std::string state_dir) : dir_(std::move(state_dir) + "/apps") {
  std::filesystem::create_directories(dir_);
}

std::string AppRecords::write_job_dir(const BatchPlan& plan) const {
  for (const auto& [path, content] : plan.files) write_file(plan.job_dir + "/" + path, content);
  write_file(plan.job_dir + "/plan.json", write_plan(plan));
  const std::string script = plan.job_dir + "/batch.sh";
  write_file(script, plan.script, true);
  for (const DependentJob& job : plan.dependents) {
    write_file(job.sbatch_argv.back(), job.script, true);
  }
  return script;
}

void AppRecords::save(const BatchPlan& plan, const std::vector<std::string>& job_ids) const {
  std::string ids;
  for (const std::string& id : job_ids) ids += (ids.empty() ? "" : " ") + id;
  write_file(dir_ + "/" + plan.app_id, ids + "\n" + plan.job_dir + "\n");
}

std::optional<AppRecord> AppRecords::find(std::string_view app_id) const {
  if (app_id.empty() || app_id.find('/') != std::string_view::npos) return std::nullopt;
  std::ifstream in(dir_ + "/" + std::string(app_id));
  AppRecord record;
  std::string ids;
  std::string job_dir;
  if (!std::getline(in, ids) || !std::getline(in, job_dir)) return std::nullopt;
  std::istringstream id_words(ids);
  for (std::string id; id_words >> id;) record.job_ids.push_back(id);
  record.plan = read_plan(read_text_file(job_dir + "/plan.json"));
  if (record.job_ids.size() != record.plan.job_count()) {
    throw Error::internal("slurm: the record of app '" + std::string(app_id) + "' holds " +
                          std::to_string(record.job_ids.size()) + " job id(s) for " +
                          std::to_string(record.plan.job_count()) + " job(s)");
  }
  return record;
}

std::vector<std::string> AppRecords::app_ids() const {
  std::vector<std::string> ids;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    std::string name = entry.path().filename().string();
    if (!name.ends_with(".tmp")) ids.push_back(std::move(name));
  }
  return ids;
}

std::optional<FinalState> AppRecords::final_state(const BatchPlan& plan, size_t job) {
  std::istringstream in(read_text_file(plan.job_dir + "/" + plan.job_file_name("final", job)));
  std::string first_line;
  std::getline(in, first_line);
  std::istringstream fields(first_line);
  FinalState state;
  if (!(fields >> state.state)) return std::nullopt;
  fields >> state.exit_code;
  std::getline(in, state.words);
  return state;
}

void AppRecords::keep_final_state(const BatchPlan& plan, size_t job, const FinalState& state) {
  write_file(
      plan.job_dir + "/" + plan.job_file_name("final", job),
      state.state + " " + state.exit_code + "\n" + (state.words.empty() ? "" : state.words + "\n"));
}

void AppRecords::mark_cancelled(const BatchPlan& plan, size_t job) {
  write_file(plan.job_dir + "/" + plan.job_file_name("cancelled", job), "");
}

bool AppRecords::was_cancelled(const BatchPlan& plan, size_t job) {
  std::error_code error;
  return std::filesystem::exists(plan.job_dir + "/" + plan.job_file_name("cancelled", job), error);
}

int64_t AppRecords::missing_since(const BatchPlan& plan, size_t job, int64_t now) {
  const std::string path = plan.job_dir + "/" + plan.job_file_name("missing", job);
  int64_t since = 0;
  if (std::istringstream(read_text_file(path)) >> since) return since;
  write_file(path, std::to_string(now) + "\n");
  return now;
}

void AppRecords::forget_missing(const BatchPlan& plan, size_t job) {
  std::error_code error;
  std::filesystem::remove(plan.job_dir + "/" + plan.job_file_name("missing", job), error);
}

}  // namespace sortie::slurm
