#include "app_records.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sstream>

#include "json.hpp"

namespace sortie::kubernetes {
namespace {

constexpr std::string_view kSuffix = ".json";

void make_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw Error::failed_precondition("kubernetes: cannot create '" + path +
                                     "': " + std::strerror(errno));
  }
}

std::optional<AppRecord> read_record(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const rapidjson::Document doc =
      plugins_common::parse_object(text.str(), "kubernetes app record " + path);
  AppRecord record;
  record.connection.kubeconfig = plugins_common::string_member(doc, "kubeconfig", path);
  record.connection.context = plugins_common::string_member(doc, "context", path);
  record.cancelled = plugins_common::bool_member(doc, "cancelled", path, false);
  return record;
}

}  // namespace

AppRecords::AppRecords(std::string state_dir) : dir_(std::move(state_dir) + "/apps") {}

void AppRecords::save(const std::string& app_id, const AppRecord& record) const {
  make_directory(dir_.substr(0, dir_.rfind('/')));
  make_directory(dir_);
  rapidjson::Document doc(rapidjson::kObjectType);
  set_string(doc, "kubeconfig", record.connection.kubeconfig, doc.GetAllocator());
  set_string(doc, "context", record.connection.context, doc.GetAllocator());
  set_member(doc, "cancelled", Json(record.cancelled), doc.GetAllocator());
  const std::string path = dir_ + "/" + app_id + std::string(kSuffix);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << plugins_common::to_json_text(doc) << "\n";
    if (!out) throw Error::failed_precondition("kubernetes: cannot write " + temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw Error::failed_precondition("kubernetes: cannot write " + path + ": " +
                                     std::strerror(errno));
  }
}

std::optional<AppRecord> AppRecords::load(const std::string& app_id) const {
  return read_record(dir_ + "/" + app_id + std::string(kSuffix));
}

std::vector<std::pair<std::string, AppRecord>> AppRecords::all() const {
  std::vector<std::pair<std::string, AppRecord>> records;
  DIR* dir = ::opendir(dir_.c_str());
  if (dir == nullptr) return records;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) {
      continue;
    }
    if (auto record = read_record(dir_ + "/" + name)) {
      records.emplace_back(name.substr(0, name.size() - kSuffix.size()), std::move(*record));
    }
  }
  ::closedir(dir);
  return records;
}

}  // namespace sortie::kubernetes
