#include "run_options.hpp"

#include <cmath>
#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::docker {
namespace {

struct OptionSpec {
  const char* name;
  const char* type;
  const char* default_json;
  const char* help;
};

constexpr OptionSpec kOptions[] = {
    {"copy_env", "list", "null",
     "glob patterns (fnmatch) of the submitter's environment variables copied into every "
     "replica, e.g. AWS_*,NCCL_*"},
    {"env", "dict", "null", "environment variables set in every replica (the role's env wins)"},
    {"privileged", "bool", "false", "run the containers privileged (docker run --privileged)"},
    {"image_repo", "str", "null",
     "push the workspace image built by the docker image provider to this repository "
     "(e.g. localhost:5000/team/trainer) and run that"},
    {"image_provider", "str", "\"docker\"",
     "image provider the host runs before dryrun; 'docker' lays the working directory over "
     "role.image (honouring .dockerignore); empty to run role.image as it is"},
    {"cancel_grace_period", "float", "10",
     "seconds between SIGTERM and SIGKILL when containers are stopped (rounded up)"},
};

[[noreturn]] void refuse(const std::string& message) { throw Error::invalid_argument(message); }

// copy_env hands the user's variables (credentials among them) to the containers; image_repo
// chooses the registry the engine pushes to with the user's registry credentials (P-5).
bool is_sensitive(std::string_view name) { return name == "copy_env" || name == "image_repo"; }

}  // namespace

std::string run_options_payload() {
  std::string text = R"({"schema":"sortie.runopts/1","options":[)";
  bool first = true;
  for (const OptionSpec& option : kOptions) {
    if (!first) text += ",";
    first = false;
    text += R"({"name":)" + quote(option.name) + R"(,"type":)" + quote(option.type) +
            R"(,"default":)" + option.default_json + R"(,"required":false,"help":)" +
            quote(option.help) + (is_sensitive(option.name) ? R"(,"sensitive":true})" : "}");
  }
  return text + "]}";
}

DockerOptions parse_run_options(const rapidjson::Value* cfg) {
  DockerOptions options;
  options.image_provider = "docker";
  if (cfg == nullptr) return options;
  if (!cfg->IsObject()) refuse("dryrun input: 'cfg' must be an object");
  for (const auto& member : cfg->GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    bool known = false;
    for (const OptionSpec& option : kOptions) known = known || name == option.name;
    if (!known) {
      refuse("run option '" + name +
             "' is not supported by local_docker; see `sortie runopts local_docker`");
    }
  }
  const std::string what = "run option";
  if (const rapidjson::Value* patterns = array_member(*cfg, "copy_env", what)) {
    for (const rapidjson::Value& pattern : patterns->GetArray()) {
      if (!pattern.IsString() || pattern.GetStringLength() == 0) {
        refuse("run option 'copy_env' must list non-empty glob patterns");
      }
      options.copy_env.emplace_back(pattern.GetString(), pattern.GetStringLength());
    }
  }
  if (const rapidjson::Value* env = object_member(*cfg, "env", what)) {
    for (const auto& entry : env->GetObject()) {
      if (!entry.value.IsString()) refuse("run option 'env' values must be strings");
      const std::string name(entry.name.GetString(), entry.name.GetStringLength());
      if (name.empty() || name.find('=') != std::string::npos) {
        refuse("run option 'env': '" + name + "' is not a valid variable name");
      }
      options.env.emplace_back(name,
                               std::string(entry.value.GetString(), entry.value.GetStringLength()));
    }
  }
  options.privileged = bool_member(*cfg, "privileged", what, false);
  options.image_repo = string_member(*cfg, "image_repo", what);
  if (options.image_repo.find_first_of(":@") != std::string::npos &&
      options.image_repo.rfind(':') > options.image_repo.rfind('/')) {
    refuse("run option 'image_repo' ('" + options.image_repo +
           "') must be a repository without tag or digest; the tag is the workspace hash");
  }
  options.image_provider = string_member(*cfg, "image_provider", what, options.image_provider);
  const double grace = number_member(*cfg, "cancel_grace_period", what, 10.0);
  if (!(grace >= 0) || grace > 86400) {
    refuse("run option 'cancel_grace_period' must be between 0 and 86400 seconds");
  }
  options.cancel_grace_seconds = static_cast<int64_t>(std::ceil(grace));
  return options;
}

}  // namespace sortie::docker
