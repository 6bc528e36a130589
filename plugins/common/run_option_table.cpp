#include "run_option_table.hpp"

#include <sortie/error.hpp>

#include "json_fields.hpp"

namespace sortie {
std::string write_run_options(std::span<const RunOptionSpec> options) {
  return write_run_options(options.data(), options.size());
}

void refuse_unknown_run_options(const rapidjson::Value& cfg, std::span<const RunOptionSpec> options,
                                std::string_view scheduler) {
  for (const auto& member : cfg.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    bool known = false;
    for (const RunOptionSpec& option : options) known = known || name == option.name;
    if (!known) {
      throw Error::invalid_argument("run option '" + std::string(name) +
                                    "' is not supported by the " + std::string(scheduler) +
                                    " scheduler; see `sortie runopts " + std::string(scheduler) +
                                    "`");
    }
  }
}

}  // namespace sortie
