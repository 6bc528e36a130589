// The run options of local_docker: their sortie.runopts/1 description and the typed values
// parsed from a dryrun input's "cfg".
#ifndef SORTIE_DOCKER_RUN_OPTIONS_HPP
#define SORTIE_DOCKER_RUN_OPTIONS_HPP

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::docker {

struct DockerOptions {
  std::vector<std::string> copy_env;                     // glob patterns (fnmatch)
  std::vector<std::pair<std::string, std::string>> env;  // for every replica
  bool privileged = false;
  std::string image_repo;      // push workspace images here ("localhost:5000/team/trainer")
  std::string image_provider;  // run by the host before dryrun
  int64_t cancel_grace_seconds = 10;
};

std::string run_options_payload();

// Parses a dryrun input's cfg, a JSON object (absent members take their defaults). Unknown
// options and wrong types are INVALID_ARGUMENT errors naming the option.
DockerOptions parse_run_options(std::string_view cfg_json);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_RUN_OPTIONS_HPP
