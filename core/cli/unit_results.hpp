// File: core/cli/unit_results.hpp
//
// The work units of an experiment side by side (docs/experiments.md, "Comparing units"): one row
// per unit with its hyperparameters and each key's last value (and, with --best KEY:min|max,
// the best), sorted by any column, as a table or CSV; the same numbers go into the JSON.
#ifndef SORTIE_CLI_UNIT_RESULTS_HPP
#define SORTIE_CLI_UNIT_RESULTS_HPP

#include <optional>
#include <sortie/session/json_text.hpp>
#include <sortie/session/session.hpp>
#include <sortie/session/unit_measurements.hpp>
#include <sortie/xm.hpp>
#include <string>
#include <utility>
#include <vector>

namespace sortie::cli {

// A column --best asks for: the least (min) or greatest (max) value of `key`.
struct BestColumn {
  std::string key;
  bool greatest = false;
  std::string name() const { return key + (greatest ? ":max" : ":min"); }
};

// "loss:min" or "acc:max"; anything else is Error(INVALID_ARGUMENT) naming --best.
BestColumn parse_best_column(const std::string& text);

struct UnitRow {
  const xm::WorkUnit* unit = nullptr;
  std::vector<std::pair<std::string, std::string>> hyperparameters;
  session::UnitMeasurements measurements;
};

struct UnitResults {
  std::vector<UnitRow> rows;
  std::vector<std::string> hyperparameter_names;  // in the order first seen
  std::vector<std::string> keys;                  // every measured key, by name
  std::vector<BestColumn> best;
};

// Collects the units' measurements (saying on stderr which could not be refreshed).
UnitResults unit_results(session::Session& session, const std::vector<xm::WorkUnit>& units,
                         std::vector<BestColumn> best);

// Orders the rows by `column` (`unit`, `state`, a hyperparameter, a key or a --best column;
// a leading '-' sorts descending); rows without a value come last. An unknown column is
// Error(INVALID_ARGUMENT) listing the columns.
void sort_unit_results(UnitResults& results, const std::string& column);

void print_unit_table(const UnitResults& results);
void print_unit_csv(const UnitResults& results);
// The "measurements" member of a unit in sortie.cli.experiment/1.
void unit_measurements_json(session::JsonText& out, const UnitRow& row);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_UNIT_RESULTS_HPP
