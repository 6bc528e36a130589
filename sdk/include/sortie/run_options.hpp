// A scheduler's run options declared once, as a table: run_options() writes it as
// sortie.runopts/1 (docs/payloads.md P-5) and dryrun() reads its "cfg" against it into typed
// values, so no scheduler writes or reads run-option JSON by hand. Part of Sortie::plugin_support.
#ifndef SORTIE_RUN_OPTIONS_HPP
#define SORTIE_RUN_OPTIONS_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The sortie.runopts/1 JSON text listing `options`, in their order.
std::string write_run_options(const RunOptionSpec* options, size_t count);
template <size_t N>
std::string write_run_options(const RunOptionSpec (&options)[N]) {
  return write_run_options(options, N);
}

// The run options of one dryrun, typed, with the table's defaults filled in.
class TypedRunOptions {
 public:
  // The value of option `name`; throws sortie::Error INVALID_ARGUMENT when the table has no such
  // option of that type, FAILED_PRECONDITION when it is neither given nor defaulted.
  const std::string& str(std::string_view name) const;
  int64_t integer(std::string_view name) const;
  double number(std::string_view name) const;
  bool boolean(std::string_view name) const;
  // A `list` or `dict` option as its JSON text.
  const std::string& json(std::string_view name) const;
  // The same, or `fallback` when the option is neither given nor defaulted (a default the
  // scheduler computes, such as a directory under its state_dir).
  std::string str(std::string_view name, std::string_view fallback) const;
  int64_t integer(std::string_view name, int64_t fallback) const;
  double number(std::string_view name, double fallback) const;
  bool boolean(std::string_view name, bool fallback) const;
  // A `list` option's strings; nullopt when it is neither given nor defaulted.
  std::optional<std::vector<std::string>> strings(std::string_view name) const;
  // A `dict` option's entries in the order given; empty when neither given nor defaulted.
  std::vector<std::pair<std::string, std::string>> string_map(std::string_view name) const;
  // Whether it is given or defaulted (not null).
  bool has(std::string_view name) const;

  struct Value {
    std::string type;  // as the table says
    bool set = false;
    std::string text;  // a str, or a list's or dict's JSON text
    int64_t integer = 0;
    double number = 0;
    bool boolean = false;
    std::vector<std::string> items;                            // a list's
    std::vector<std::pair<std::string, std::string>> entries;  // a dict's
  };
  std::map<std::string, Value, std::less<>> values;  // every option of the table
};

// Reads DryrunInput::cfg_json (a JSON object; empty or null: no options) against the table of
// scheduler `scheduler`. Lists hold strings and dicts map strings to strings; an int may be
// written 2.0. Throws sortie::Error INVALID_ARGUMENT naming an option the table lacks ("run
// option 'x' is not supported by the S scheduler; see `sortie runopts S`"), a value of the wrong
// type ("run option 'x': expected an integer, got "3"") or a required option left unset or empty
// (the host refuses all three before the plugin sees them; this guards a direct caller).
TypedRunOptions read_run_options(std::string_view cfg_json, const RunOptionSpec* options,
                                 size_t count, std::string_view scheduler);
template <size_t N>
TypedRunOptions read_run_options(std::string_view cfg_json, const RunOptionSpec (&options)[N],
                                 std::string_view scheduler) {
  return read_run_options(cfg_json, options, N, scheduler);
}

}  // namespace sortie

#endif  // SORTIE_RUN_OPTIONS_HPP
