#include "run_options.hpp"

#include <cmath>
#include <sortie/plugin.hpp>
#include <sortie/run_options.hpp>

namespace sortie::docker {
namespace {

// Sensitive (P-5): copy_env hands the user's variables (credentials among them) to the
// containers; image_repo chooses the registry the engine pushes to with the user's credentials.
constexpr RunOptionSpec kOptions[] = {
    {"copy_env", "list", "null",
     "glob patterns (fnmatch) of the submitter's environment variables copied into every "
     "replica, e.g. AWS_*,NCCL_*",
     RunOptionEffect::kSendsData},
    {"env", "dict", "null", "environment variables set in every replica (the role's env wins)",
     RunOptionEffect::kRunsProgram},
    {"privileged", "bool", "false", "run the containers privileged (docker run --privileged)",
     RunOptionEffect::kWidensPrivilege},
    {"image_repo", "str", "null",
     "push the workspace image built by the docker image provider to this repository "
     "(e.g. localhost:5000/team/trainer) and run that",
     RunOptionEffect::kSendsData},
    {"image_provider", "str", "\"docker\"",
     "image provider the host runs before dryrun; 'docker' lays the working directory over "
     "role.image (honouring .dockerignore); empty to run role.image as it is",
     RunOptionEffect::kNone},
    {"cancel_grace_period", "float", "10",
     "seconds between SIGTERM and SIGKILL when containers are stopped (rounded up)",
     RunOptionEffect::kNone},
};

[[noreturn]] void refuse(const std::string& message) { throw Error::invalid_argument(message); }

}  // namespace

std::string run_options_payload() { return write_run_options(kOptions); }

DockerOptions parse_run_options(std::string_view cfg_json) {
  const TypedRunOptions values = read_run_options(cfg_json, kOptions, "local_docker");
  DockerOptions options;
  for (std::string& pattern : values.strings("copy_env").value_or(std::vector<std::string>{})) {
    if (pattern.empty()) refuse("run option 'copy_env' must list non-empty glob patterns");
    options.copy_env.push_back(std::move(pattern));
  }
  for (auto& [name, value] : values.string_map("env")) {
    if (name.empty() || name.find('=') != std::string::npos) {
      refuse("run option 'env': '" + name + "' is not a valid variable name");
    }
    options.env.emplace_back(std::move(name), std::move(value));
  }
  options.privileged = values.boolean("privileged");
  options.image_repo = values.str("image_repo", "");
  if (options.image_repo.find_first_of(":@") != std::string::npos &&
      options.image_repo.rfind(':') > options.image_repo.rfind('/')) {
    refuse("run option 'image_repo' ('" + options.image_repo +
           "') must be a repository without tag or digest; the tag is the workspace hash");
  }
  options.image_provider = values.str("image_provider");
  const double grace = values.number("cancel_grace_period");
  if (!(grace >= 0) || grace > 86400) {
    refuse("run option 'cancel_grace_period' must be between 0 and 86400 seconds");
  }
  options.cancel_grace_seconds = static_cast<int64_t>(std::ceil(grace));
  return options;
}

}  // namespace sortie::docker
