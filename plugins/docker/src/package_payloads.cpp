#include "package_payloads.hpp"

#include <algorithm>
#include <filesystem>
#include <sortie/plugin.hpp>

#include "json_fields.hpp"
#include "package_result.hpp"

namespace sortie::docker {

PackagerConfig read_packager_config(std::string_view config, std::string_view kind) {
  const std::string what = "sortie.packager_config/1";
  const rapidjson::Document document = plugins_common::parse_object(config, what);
  PackagerConfig result;
  result.name = plugins_common::string_member(document, "name", what, std::string(kind));
  result.state_dir = plugins_common::string_member(document, "state_dir", what);
  if (!result.state_dir.empty() && result.state_dir[0] != '/') {
    throw Error::invalid_argument(result.name + " packager: " + what +
                                  " member 'state_dir' must be an absolute path");
  }
  return result;
}

PackageRequest::PackageRequest(std::string_view text, std::string_view kind,
                               std::initializer_list<const char*> members)
    : kind_(kind) {
  const std::string what = "sortie.package_request/1";
  document_ = plugins_common::parse_object(text, what);
  launch_dir_ = plugins_common::string_member(document_, "launch_dir", what);
  if (launch_dir_.empty() || launch_dir_[0] != '/') {
    throw Error::invalid_argument(what +
                                  ": member 'launch_dir' must be an absolute directory (the " +
                                  kind_ + " packager resolves relative paths against it)");
  }
  const rapidjson::Value* executables =
      plugins_common::array_member(document_, "executables", what);
  if (executables == nullptr) {
    throw Error::invalid_argument(what + ": member 'executables' is required");
  }
  for (const rapidjson::Value& executable : executables->GetArray()) {
    if (!executable.IsObject()) {
      throw Error::invalid_argument(what + ": every executable must be an object");
    }
    executables_.push_back(&executable);
    const std::string described = describe(executables_.size() - 1);
    const std::string executable_kind =
        plugins_common::string_member(executable, "kind", described);
    if (executable_kind != kind_) {
      throw Error::invalid_argument(described + ": kind '" + executable_kind + "' reached the " +
                                    kind_ + " packager, which packages only '" + kind_ + "'");
    }
    for (const auto& member : executable.GetObject()) {
      const std::string_view key(member.name.GetString(), member.name.GetStringLength());
      const bool known = key == "kind" || key == "name" ||
                         std::any_of(members.begin(), members.end(),
                                     [&](const char* allowed) { return key == allowed; });
      if (!known) {
        std::string allowed_list;
        for (const char* allowed : members) allowed_list += std::string(", ") + allowed;
        throw Error::invalid_argument(described + ": member '" + std::string(key) +
                                      "' has no meaning for kind " + kind_ + " (its members: name" +
                                      allowed_list + "); remove it");
      }
    }
  }
}

std::string PackageRequest::describe(size_t index) const {
  const rapidjson::Value& executable = *executables_[index];
  const rapidjson::Value* name = plugins_common::find_member(executable, "name");
  const std::string label = name != nullptr && name->IsString()
                                ? "'" + std::string(name->GetString()) + "'"
                                : "#" + std::to_string(index);
  return "executable " + label + " (" + kind_ + ")";
}

std::string PackageRequest::resolve(const std::string& path) const {
  std::filesystem::path full =
      path.empty() ? std::filesystem::path(launch_dir_) : std::filesystem::path(launch_dir_) / path;
  std::string normal = full.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

std::string package_each(const PackageRequest& request,
                         const std::function<PackagedImage(size_t index)>& package_one) {
  plugins_common::PackageResultWriter result;
  for (size_t i = 0; i < request.size(); ++i) {
    PackagedImage packaged;
    try {
      packaged = package_one(i);
    } catch (const Error& error) {
      throw Error(error.code(), request.describe(i) + ": " + error.what());
    }
    result.add_image(packaged.image, packaged.digest, packaged.cached);
  }
  return result.finish();
}

}  // namespace sortie::docker
