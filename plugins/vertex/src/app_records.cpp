#include "app_records.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sstream>

#include "json_fields.hpp"

namespace sortie::vertex {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

bool plain_segment(const std::string& segment) {
  return !segment.empty() && segment.find_first_of("/:") == std::string::npos && segment != "." &&
         segment != "..";
}

AppRecord record_from_text(const std::string& text, const std::string& app_id,
                           const std::string& what) {
  const rapidjson::Document document = plugins_common::parse_object(text, what);
  AppRecord record;
  record.app_id = app_id;
  record.job_name = plugins_common::string_member(document, "job_name", what);
  if (const rapidjson::Value* connection =
          plugins_common::object_member(document, "connection", what)) {
    record.connection = connection_from_json(*connection, what);
  }
  return record;
}

}  // namespace

std::string app_id_for_job(const std::string& job_name) {
  const std::vector<std::string> parts = split(job_name, '/');
  if (parts.size() != 6 || parts[0] != "projects" || parts[2] != "locations" ||
      parts[4] != "customJobs" || parts[1].empty() || !plain_segment(parts[3]) ||
      !plain_segment(parts[5]) || parts[1].find('/') != std::string::npos) {
    throw Error::unavailable("Vertex AI answered with a CustomJob name '" + job_name +
                             "' that is not projects/P/locations/L/customJobs/ID");
  }
  return parts[1] + ":" + parts[3] + ":" + parts[5];
}

std::string job_name_for_app(const std::string& app_id) {
  // The project may itself hold a ':' (domain-scoped projects), so split at the last two.
  const size_t last = app_id.rfind(':');
  const size_t middle =
      last == std::string::npos || last == 0 ? std::string::npos : app_id.rfind(':', last - 1);
  if (middle == std::string::npos || middle == 0 || app_id.find('/') != std::string::npos ||
      !plain_segment(app_id.substr(middle + 1, last - middle - 1)) ||
      !plain_segment(app_id.substr(last + 1))) {
    throw Error::not_found("'" + app_id +
                           "' is not a vertex app id; expected PROJECT:LOCATION:JOB_ID "
                           "as printed by `sortie run -s vertex`");
  }
  return "projects/" + app_id.substr(0, middle) + "/locations/" +
         app_id.substr(middle + 1, last - middle - 1) + "/customJobs/" + app_id.substr(last + 1);
}

std::string parent_of_job(const std::string& job_name) {
  return job_name.substr(0, job_name.find("/customJobs/"));
}

void AppRecords::save(const AppRecord& record) const {
  std::filesystem::create_directories(dir_);
  rapidjson::Document document(rapidjson::kObjectType);
  auto& alloc = document.GetAllocator();
  plugins_common::add_string(document, "job_name", record.job_name, alloc);
  plugins_common::add_member(document, "connection", connection_to_json(record.connection, alloc),
                             alloc);
  const std::string path = dir_ + "/" + record.app_id + ".json";
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << plugins_common::to_json_text(document) << "\n";
    if (!out) {
      throw Error::internal("cannot write the app record " + temporary +
                            "; check that the state directory is writable");
    }
  }
  std::filesystem::rename(temporary, path);
}

AppRecord AppRecords::load(const std::string& app_id) const {
  const std::string job_name = job_name_for_app(app_id);
  const std::string path = dir_ + "/" + app_id + ".json";
  std::ifstream in(path);
  if (in) {
    std::ostringstream text;
    text << in.rdbuf();
    AppRecord record = record_from_text(text.str(), app_id, "app record " + path);
    record.job_name = job_name;
    return record;
  }
  AppRecord record;
  record.app_id = app_id;
  record.job_name = job_name;
  const std::string location =
      job_name.substr(job_name.find("/locations/") + 11,
                      job_name.find("/customJobs/") - (job_name.find("/locations/") + 11));
  record.connection.endpoint = "https://" + location + "-aiplatform.googleapis.com";
  return record;
}

std::vector<AppRecord> AppRecords::all() const {
  std::vector<AppRecord> records;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".json") continue;
    const std::string app_id = file.substr(0, file.size() - 5);
    try {
      records.push_back(load(app_id));
    } catch (const Error&) {
      // A file that is not a record (hand-made, half-written by a crash) is not an app.
    }
  }
  return records;
}

}  // namespace sortie::vertex
