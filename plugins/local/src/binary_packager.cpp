#include "binary_packager.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

// The docker plugin's dependency-free SHA-256, compiled into this plugin too (CMakeLists.txt).
#include <sortie/sha256.hpp>

#include "json_fields.hpp"
#include "package_result.hpp"

namespace sortie::local {
namespace {

constexpr const char* kRequest = "sortie.package_request/1";

// The absolute path of one binary executable, checked to be an executable regular file.
std::string checked_binary(const rapidjson::Value& executable, const std::string& launch_dir,
                           const std::string& what) {
  for (const auto& member : executable.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    if (key != "kind" && key != "name" && key != "path") {
      throw Error::invalid_argument(what + ": member '" + std::string(key) +
                                    "' has no meaning for kind binary (its members: "
                                    "name, path); remove it");
    }
  }
  const std::string path = plugins_common::string_member(executable, "path", what);
  if (path.empty()) {
    throw Error::invalid_argument(what + ": member 'path' is required (the program to run)");
  }
  const std::string absolute =
      (std::filesystem::path(launch_dir) / path).lexically_normal().string();
  const std::string named = what + ": path '" + path + "' (" + absolute + ")";
  struct stat info {};
  if (::stat(absolute.c_str(), &info) != 0) {
    throw Error::not_found(named +
                           " does not exist; build it or fix the path (relative "
                           "paths are against " +
                           launch_dir + ")");
  }
  if (!S_ISREG(info.st_mode)) {
    throw Error::failed_precondition(named +
                                     " is not a regular file; point 'path' at the program itself");
  }
  if (::access(absolute.c_str(), X_OK) != 0 || (info.st_mode & 0111) == 0) {
    throw Error::failed_precondition(named + " is not executable; run chmod +x " + absolute);
  }
  return absolute;
}

}  // namespace

BinaryPackager::BinaryPackager(std::string_view config) {
  plugins_common::parse_object(config, "sortie.packager_config/1");
}

std::string BinaryPackager::package(std::string_view request_text) {
  const rapidjson::Document request = plugins_common::parse_object(request_text, kRequest);
  const std::string launch_dir = plugins_common::string_member(request, "launch_dir", kRequest);
  if (launch_dir.empty() || launch_dir[0] != '/') {
    throw Error::invalid_argument(
        std::string(kRequest) +
        ": member 'launch_dir' must be an absolute directory (binary paths are "
        "relative to it)");
  }
  const rapidjson::Value* executables =
      plugins_common::array_member(request, "executables", kRequest);
  if (executables == nullptr) {
    throw Error::invalid_argument(std::string(kRequest) + ": member 'executables' is required");
  }

  plugins_common::PackageResultWriter result;
  size_t index = 0;
  for (const rapidjson::Value& executable : executables->GetArray()) {
    if (!executable.IsObject()) {
      throw Error::invalid_argument(std::string(kRequest) + ": every executable must be an object");
    }
    const std::string name =
        plugins_common::string_member(executable, "name", kRequest, "#" + std::to_string(index++));
    const std::string what = "executable '" + name + "' (binary)";
    const std::string kind = plugins_common::string_member(executable, "kind", what);
    if (kind != "binary") {
      throw Error(
          Code::kInvalidArgument,
          what + ": kind '" + kind + "' reached the binary packager, which packages only 'binary'");
    }
    const std::string entrypoint = checked_binary(executable, launch_dir, what);
    result.add_process(entrypoint, file_sha256(entrypoint), false);
  }
  return result.finish();
}

}  // namespace sortie::local
