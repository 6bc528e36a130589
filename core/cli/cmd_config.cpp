// `sortie config trust [FILE]`: records a working-directory .sortieconfig (or .torchxconfig) as
// trusted (path and SHA-256, docs/config-trust.md), after `direnv allow`; editing the file
// untrusts it again.
#include <cstdio>
#include <filesystem>
#include <sortie/model/config_trust.hpp>
#include <sortie/model/error.hpp>
#include <string>

#include "commands.hpp"

namespace sortie::cli {
namespace {

constexpr const char* kUsage =
    "usage: sortie config trust [FILE]\n\n"
    "  trust FILE  let FILE (default ./.sortieconfig; a ./.torchxconfig too) set the run\n"
    "              options that run programs or choose credentials; recorded with its SHA-256,\n"
    "              so an edited FILE is untrusted again (docs/config-trust.md)\n";

}  // namespace

int cmd_config(session::Session& /*ctx*/, const Args& args) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args.empty() || args[0] != "trust" || args.size() > 2) {
    throw Error::invalid_argument(
        "expected `sortie config trust [FILE]` (see `sortie config --help`)");
  }
  const std::filesystem::path file =
      std::filesystem::weakly_canonical(args.size() == 2 ? args[1] : ".sortieconfig");
  const std::string digest = model::trust_config(file.string());
  std::printf("trusted %s (sha256 %s)\n", file.c_str(), digest.substr(0, 12).c_str());
  return kExitOk;
}

}  // namespace sortie::cli
