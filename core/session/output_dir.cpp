#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sortie/model/error.hpp>
#include <sortie/session/output_dir.hpp>
#include <sortie/session/session.hpp>

namespace sortie::session {

namespace {

// A name as one path component: letters, digits, '.', '-' and '_' kept, anything else '_', so
// that no session name leaves the root ("..", "a/b"); app ids keep the names distinct.
std::string path_component(const std::string& name) {
  std::string component;
  for (const char c : name) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    component += kept ? c : '_';
  }
  if (component.empty() || component.front() == '.') component.insert(0, "_");
  return component;
}

[[noreturn]] void cannot_create(const std::string& path, const std::string& why) {
  throw Error::failed_precondition("cannot create the output directory " + path + ": " + why +
                                   " (set SORTIE_OUTPUT_ROOT to a writable directory)");
}

}  // namespace

std::string output_root() {
  const char* configured = std::getenv("SORTIE_OUTPUT_ROOT");
  if (configured != nullptr && *configured != '\0') return configured;
  return state_dir() + "/outputs";
}

std::string app_output_dir(const std::string& scheduler, const std::string& session,
                           const std::string& app_id) {
  return output_root() + "/apps/" + path_component(scheduler) + "/" + path_component(session) +
         "/" + path_component(app_id);
}

std::string work_unit_output_dir(int64_t experiment_id, int work_unit_id) {
  return output_root() + "/experiments/" + std::to_string(experiment_id) + "/" +
         std::to_string(work_unit_id);
}

void create_output_dir(const std::string& dir) {
  if (dir.empty() || dir.front() != '/') cannot_create(dir, "it is not an absolute path");
  for (size_t end = dir.find('/', 1);; end = dir.find('/', end + 1)) {
    const std::string prefix = dir.substr(0, end);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      cannot_create(dir, prefix + ": " + std::strerror(errno));
    }
    if (end == std::string::npos) break;
  }
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    cannot_create(dir, "it exists and is not a directory");
  }
}

}  // namespace sortie::session
