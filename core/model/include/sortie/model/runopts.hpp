// File: sortie/model/runopts.hpp
//
// Typed scheduler run options (docs/payloads.md P-5), after TorchX's runopts: the scheduler
// declares them, the host parses "-cfg k=v,k2=v2" text and config-file values against them,
// refuses unknown names, bad types and missing required ones, and fills defaults.
#ifndef SORTIE_MODEL_RUNOPTS_HPP
#define SORTIE_MODEL_RUNOPTS_HPP

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::model {

enum class OptType { kStr, kInt, kFloat, kBool, kList, kDict };

// What setting an option does, as the trust rule sees it (docs/config-trust.md TRUST-2): only a
// trusted origin may set an option whose effect is not kNone.
enum class OptEffect {
  kNone,
  kRunsProgram,           // "runs_program": names a program or code that is run
  kWidensPrivilege,       // "widens_privilege": gives the job or others more power
  kSendsData,             // "sends_data": chooses where data or credentials go, or which
  kChoosesWriteLocation,  // "chooses_write_location": chooses where files are written
  kSensitive,             // "sensitive": true with no effect named (P-5 before effects)
};

struct RunOpt {
  std::string name;
  OptType type = OptType::kStr;
  std::optional<std::string> default_json;  // the default as JSON text; nullopt = no default
  bool required = false;
  std::string help;
  OptEffect effect = OptEffect::kNone;
};

const char* to_string(OptType type) noexcept;
// The effect's name in sortie.runopts/1 ("runs_program"; "sensitive" for kSensitive).
const char* to_string(OptEffect effect) noexcept;

// Parses a "sortie.runopts/1" document; `origin` names the scheduler in errors.
std::vector<RunOpt> parse_runopts(std::string_view json, std::string_view origin);

// Splits "-cfg" text into key/value pairs: "a=1,b=x;y,c=k1:v1;k2:v2". A comma starts a new pair
// only when followed by "key="; so list values may use ',' or ';'.
std::map<std::string, std::string> split_cfg(std::string_view text);

// One raw value with where it came from, for error messages ("-cfg", ".sortieconfig:12").
struct RawOpt {
  std::string value;
  std::string origin;
  bool trusted = true;  // false: from a working-directory .sortieconfig nobody trusted
};

// Converts raw values to a JSON object of typed values with defaults filled in. Throws Error
// naming the option, its origin and the scheduler: unknown option (with close names), value not
// of the option's type, required option missing, option with an effect from an untrusted origin.
std::string resolve_runopts(const std::vector<RunOpt>& opts,
                            const std::map<std::string, RawOpt>& raw, std::string_view scheduler);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_RUNOPTS_HPP
