// A plugin's run options as a table (sortie.runopts/1, docs/payloads.md P-5): the payload
// run_options() returns, and the refusal of an option the table does not have. Shared by the
// first-party plugins; not part of the SDK.
#ifndef SORTIE_PLUGINS_RUN_OPTION_TABLE_HPP
#define SORTIE_PLUGINS_RUN_OPTION_TABLE_HPP

#include <rapidjson/document.h>

#include <span>
#include <string>
#include <string_view>

namespace sortie {

// Bits of RunOptionSpec::flags.
enum RunOptionFlag : unsigned {
  kRunOptionRequired = 1u << 0,
};

// What setting an option does, as the trust rule sees it (docs/config-trust.md TRUST-2): an
// untrusted .sortieconfig may set only options whose effect is kNone. Every row names one, so
// an option nobody classified does not compile (-Wmissing-field-initializers).
enum class RunOptionEffect {
  kNone,
  kRunsProgram,           // names a program or code that is run
  kWidensPrivilege,       // gives the job or others more power than they have by default
  kSendsData,             // chooses where data or credentials go, or which credentials
  kChoosesWriteLocation,  // chooses where files are written
};

struct RunOptionSpec {
  const char* name;
  const char* type;          // str, int, float, bool, list, dict
  const char* default_json;  // the default as JSON text: "null", "false", "\"docker\"", "3"
  const char* help;
  RunOptionEffect effect;
  unsigned flags = 0;  // RunOptionFlag bits
};

// The sortie.runopts/1 JSON text listing `options`.
std::string write_run_options(std::span<const RunOptionSpec> options);

// Throws INVALID_ARGUMENT naming the first member of `cfg` that `options` does not list, and
// where to look: "run option 'x' is not supported by the slurm scheduler; see `sortie runopts
// slurm`".
void refuse_unknown_run_options(const rapidjson::Value& cfg, std::span<const RunOptionSpec> options,
                                std::string_view scheduler);

}  // namespace sortie

#endif  // SORTIE_PLUGINS_RUN_OPTION_TABLE_HPP
