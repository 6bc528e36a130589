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
  return script;
}

void AppRecords::save(const BatchPlan& plan, const std::string& job_id) const {
  write_file(dir_ + "/" + plan.app_id, job_id + "\n" + plan.job_dir + "\n");
}

std::optional<AppRecord> AppRecords::find(std::string_view app_id) const {
  if (app_id.empty() || app_id.find('/') != std::string_view::npos) return std::nullopt;
  std::ifstream in(dir_ + "/" + std::string(app_id));
  AppRecord record;
  std::string job_dir;
  if (!std::getline(in, record.job_id) || !std::getline(in, job_dir)) return std::nullopt;
  record.plan = read_plan(read_text_file(job_dir + "/plan.json"));
  return record;
}

AppRecord AppRecords::load(std::string_view app_id) const {
  std::optional<AppRecord> record = find(app_id);
  if (!record) throw Error::not_found("slurm: no app '" + std::string(app_id) + "'");
  return std::move(*record);
}

std::vector<AppRecord> AppRecords::all() const {
  std::vector<AppRecord> records;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".tmp")) continue;
    try {
      if (std::optional<AppRecord> record = find(name)) records.push_back(std::move(*record));
    } catch (const Error&) {
      // A job directory removed by hand: the app is gone, not an error for the others.
    }
  }
  return records;
}

std::optional<FinalState> AppRecords::final_state(const std::string& job_dir) {
  std::istringstream in(read_text_file(job_dir + "/final"));
  FinalState state;
  if (!(in >> state.state)) return std::nullopt;
  in >> state.exit_code;
  return state;
}

void AppRecords::keep_final_state(const std::string& job_dir, const FinalState& state) {
  write_file(job_dir + "/final", state.state + " " + state.exit_code + "\n");
}

}  // namespace sortie::slurm
