// Typed reading of the run options a scheduler was given (the "cfg" of sortie.dryrun_input/1)
// against its table: unknown options and missing required ones are refused up front, and every
// wrong type is refused with the same wording: "run option 'x': expected an integer, got "3.5"".
// The host already checks types against the table (P-5); this guards a direct ABI caller.
#ifndef SORTIE_PLUGINS_RUN_OPTION_VALUES_HPP
#define SORTIE_PLUGINS_RUN_OPTION_VALUES_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run_option_table.hpp"

namespace sortie {

class RunOptionValues {
 public:
  // `cfg` may be nullptr (no options given). Throws INVALID_ARGUMENT when it is not an object,
  // names an option `table` lacks, or leaves a required option unset or empty.
  RunOptionValues(const rapidjson::Value* cfg, std::span<const RunOptionSpec> table,
                  std::string_view scheduler);

  // Whether the option is given (and not null).
  bool has(std::string_view name) const;

  // The option's value, or `fallback` when it is absent or null.
  std::string string(std::string_view name, std::string fallback = "") const;
  int64_t integer(std::string_view name, int64_t fallback) const;
  double number(std::string_view name, double fallback) const;
  bool boolean(std::string_view name, bool fallback) const;
  // A `list` option (strings); nullopt when absent.
  std::optional<std::vector<std::string>> string_list(std::string_view name) const;
  // A `dict` option (string to string), in the order given; empty when absent.
  std::vector<std::pair<std::string, std::string>> string_map(std::string_view name) const;

 private:
  const rapidjson::Value* find(std::string_view name) const;
  [[noreturn]] void wrong_type(std::string_view name, const rapidjson::Value& value,
                               const char* expected) const;

  const rapidjson::Value* cfg_;
};

}  // namespace sortie

#endif  // SORTIE_PLUGINS_RUN_OPTION_VALUES_HPP
