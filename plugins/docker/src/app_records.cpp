#include "app_records.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sstream>

#include "json_fields.hpp"

namespace sortie::docker {

AppRecords::AppRecords(std::string state_dir) : dir_(std::move(state_dir) + "/apps") {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) {
    throw Error::failed_precondition("local_docker: cannot create its state directory '" + dir_ +
                                     "': " + error.message());
  }
}

std::string AppRecords::path(std::string_view app_id) const {
  return dir_ + "/" + std::string(app_id) + ".json";
}

void AppRecords::store(const AppRecord& record) const {
  rapidjson::StringBuffer buffer;
  plugins_common::JsonWriter w(buffer);
  w.StartObject();
  w.Key("schema");
  w.String("sortie.docker_app/1");
  w.Key("app_id");
  plugins_common::write_string(w, record.app_id);
  w.Key("name");
  plugins_common::write_string(w, record.name);
  w.Key("session");
  plugins_common::write_string(w, record.session);
  w.Key("roles");
  write_role_layouts(w, record.roles);
  w.Key("failure");
  plugins_common::write_string(w, record.failure);
  w.Key("final_status");
  plugins_common::write_string(w, record.final_status);
  w.Key("stopped");
  w.StartArray();
  for (const std::string& name : record.stopped) plugins_common::write_string(w, name);
  w.EndArray();
  w.EndObject();

  const std::string final_path = path(record.app_id);
  const std::string temporary = final_path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
    if (!out) {
      throw Error::failed_precondition("local_docker: cannot write '" + temporary + "'");
    }
  }
  if (std::rename(temporary.c_str(), final_path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw Error::failed_precondition("local_docker: cannot write '" + final_path + "': " + reason);
  }
}

std::optional<AppRecord> AppRecords::load(std::string_view app_id) const {
  if (app_id.empty() || app_id.find('/') != std::string_view::npos || app_id[0] == '.') {
    return std::nullopt;
  }
  std::ifstream in(path(app_id), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  const std::string what = "local_docker record " + path(app_id);
  const rapidjson::Document document = plugins_common::parse_object(text.str(), what);
  AppRecord record;
  record.app_id = plugins_common::string_member(document, "app_id", what);
  record.name = plugins_common::string_member(document, "name", what);
  record.session = plugins_common::string_member(document, "session", what);
  record.roles = read_role_layouts(document, what);
  record.failure = plugins_common::string_member(document, "failure", what);
  record.final_status = plugins_common::string_member(document, "final_status", what);
  if (const rapidjson::Value* stopped = plugins_common::array_member(document, "stopped", what)) {
    for (const rapidjson::Value& name : stopped->GetArray()) {
      if (name.IsString()) record.stopped.emplace_back(name.GetString(), name.GetStringLength());
    }
  }
  return record;
}

std::vector<std::string> AppRecords::app_ids() const {
  std::vector<std::string> ids;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
      ids.push_back(name.substr(0, name.size() - 5));
    }
  }
  return ids;
}

}  // namespace sortie::docker
