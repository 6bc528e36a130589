// The work units of an experiment side by side (unit_results.hpp).
#include "unit_results.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/session/work_unit_args.hpp>

#include "measurement_text.hpp"
#include "printable.hpp"

namespace sortie::cli {
namespace {

std::optional<double> number_of(const std::string& text) {
  double value = 0;
  const char* last = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), last, value);
  if (error != std::errc() || stop != last) return std::nullopt;
  return value;
}

const store::MeasurementSeries* series_of(const UnitRow& row, const std::string& key) {
  const auto found = row.measurements.by_key.find(key);
  return found == row.measurements.by_key.end() ? nullptr : &found->second.series;
}

std::optional<double> last_value(const UnitRow& row, const std::string& key) {
  const store::MeasurementSeries* series = series_of(row, key);
  if (series == nullptr) return std::nullopt;
  return series->last.value;
}

std::optional<double> best_value(const UnitRow& row, const BestColumn& best) {
  const store::MeasurementSeries* series = series_of(row, best.key);
  if (series == nullptr) return std::nullopt;
  return best.greatest ? series->max.value : series->min.value;
}

std::string hyperparameter(const UnitRow& row, const std::string& name) {
  for (const auto& [key, value] : row.hyperparameters) {
    if (key == name) return value;
  }
  return "";
}

// A cell to sort by: a number, else text; absent sorts last either way.
struct SortValue {
  bool present = false;
  std::optional<double> number;
  std::string text;
};

SortValue sort_value(const UnitResults& results, const UnitRow& row, const std::string& column) {
  if (column == "unit") return {true, row.unit->id, ""};
  if (column == "state") return {true, std::nullopt, xm::to_string(row.unit->state)};
  for (const BestColumn& best : results.best) {
    if (best.name() == column) {
      const auto value = best_value(row, best);
      return {value.has_value(), value, ""};
    }
  }
  if (std::find(results.keys.begin(), results.keys.end(), column) != results.keys.end()) {
    const auto value = last_value(row, column);
    return {value.has_value(), value, ""};
  }
  const std::string text = hyperparameter(row, column);
  return {!text.empty(), number_of(text), text};
}

std::vector<std::string> column_names(const UnitResults& results) {
  std::vector<std::string> names = {"unit", "state"};
  names.insert(names.end(), results.hyperparameter_names.begin(),
               results.hyperparameter_names.end());
  names.insert(names.end(), results.keys.begin(), results.keys.end());
  for (const BestColumn& best : results.best) names.push_back(best.name());
  return names;
}

// Every cell of `row`, as the table shows it (`exact`: as CSV writes numbers).
std::vector<std::string> cells(const UnitResults& results, const UnitRow& row, bool exact) {
  const auto number = [exact](const std::optional<double>& value) {
    if (!value) return std::string();
    return exact ? exact_value_text(*value) : value_text(*value);
  };
  std::vector<std::string> out = {std::to_string(row.unit->id), xm::to_string(row.unit->state)};
  for (const std::string& name : results.hyperparameter_names) {
    out.push_back(hyperparameter(row, name));
  }
  for (const std::string& key : results.keys) out.push_back(number(last_value(row, key)));
  for (const BestColumn& best : results.best) out.push_back(number(best_value(row, best)));
  return out;
}

// A CSV field (RFC 4180) of `text` made printable first: a key a job wrote with ESC, a NUL or a
// line break in it neither acts on the terminal nor cuts or splits the row.
std::string csv_field(const std::string& text) {
  const std::string shown = printable(text);
  if (shown.find_first_of(",\"") == std::string::npos) return shown;
  std::string quoted = "\"";
  for (char c : shown) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

BestColumn parse_best_column(const std::string& text) {
  const size_t colon = text.rfind(':');
  const std::string which = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (colon == 0 || (which != "min" && which != "max")) {
    throw Error::invalid_argument("--best '" + text +
                                  "': expected KEY:min or KEY:max (e.g. loss:min)");
  }
  return BestColumn{text.substr(0, colon), which == "max"};
}

UnitResults unit_results(session::Session& session, const std::vector<xm::WorkUnit>& units,
                         std::vector<BestColumn> best) {
  UnitResults results;
  results.best = std::move(best);
  std::set<std::string> keys;
  for (const xm::WorkUnit& unit : units) {
    UnitRow row;
    row.unit = &unit;
    row.hyperparameters = session::hyperparameters_of(unit.args_json);
    for (const auto& [name, value] : row.hyperparameters) {
      if (std::find(results.hyperparameter_names.begin(), results.hyperparameter_names.end(),
                    name) == results.hyperparameter_names.end()) {
        results.hyperparameter_names.push_back(name);
      }
    }
    std::vector<std::string> handles;
    for (const xm::JobHandle& job : unit.jobs) {
      if (std::find(handles.begin(), handles.end(), job.app) == handles.end()) {
        handles.push_back(job.app);
      }
    }
    row.measurements = session::unit_measurements(session, handles);
    for (const std::string& why : row.measurements.not_refreshed) {
      std::fprintf(stderr, "sortie: measurements not brought up to date: %s\n",
                   printable(why).c_str());
    }
    for (const auto& [key, unused] : row.measurements.by_key) keys.insert(key);
    results.rows.push_back(std::move(row));
  }
  results.keys.assign(keys.begin(), keys.end());
  return results;
}

void sort_unit_results(UnitResults& results, const std::string& column) {
  const bool descending = !column.empty() && column[0] == '-';
  const std::string name = descending ? column.substr(1) : column;
  const std::vector<std::string> names = column_names(results);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string listed;
    for (const std::string& known : names) listed += (listed.empty() ? "" : ", ") + known;
    throw Error::invalid_argument("--sort '" + column + "': no such column; the columns are " +
                                  listed + " (a leading - sorts descending: --sort=-acc)");
  }
  std::vector<std::pair<SortValue, UnitRow>> keyed;
  for (UnitRow& row : results.rows) {
    keyed.emplace_back(sort_value(results, row, name), std::move(row));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [descending](const auto& a, const auto& b) {
    const SortValue& x = a.first;
    const SortValue& y = b.first;
    if (x.present != y.present) return x.present;
    if (!x.present) return false;
    if (x.number && y.number) return descending ? *x.number > *y.number : *x.number < *y.number;
    return descending ? x.text > y.text : x.text < y.text;
  });
  results.rows.clear();
  for (auto& [unused, row] : keyed) results.rows.push_back(std::move(row));
}

void print_unit_table(const UnitResults& results) {
  const std::vector<std::string> header = column_names(results);
  std::vector<std::vector<std::string>> table = {header};
  for (const UnitRow& row : results.rows) table.push_back(cells(results, row, false));
  // The best unit of each --best column is marked with '*'.
  const size_t first_best = header.size() - results.best.size();
  for (size_t b = 0; b < results.best.size(); ++b) {
    std::optional<double> best;
    size_t best_row = 0;
    for (size_t r = 0; r < results.rows.size(); ++r) {
      const auto value = best_value(results.rows[r], results.best[b]);
      if (value && (!best || (results.best[b].greatest ? *value > *best : *value < *best))) {
        best = value;
        best_row = r + 1;
      }
    }
    if (best) table[best_row][first_best + b] += "*";
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& line : table) {
    for (size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  }
  for (const auto& line : table) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      text += printable(line[c]);
      if (c + 1 < line.size()) text += std::string(widths[c] - line[c].size() + 2, ' ');
    }
    std::printf("%s\n", text.c_str());
  }
}

void print_unit_csv(const UnitResults& results) {
  const auto print_line = [](const std::vector<std::string>& fields) {
    std::string text;
    for (size_t i = 0; i < fields.size(); ++i) text += (i == 0 ? "" : ",") + csv_field(fields[i]);
    std::printf("%s\n", text.c_str());
  };
  print_line(column_names(results));
  for (const UnitRow& row : results.rows) print_line(cells(results, row, true));
}

void unit_measurements_json(session::JsonText& out, const UnitRow& row) {
  out.key("measurements").begin_object();
  for (const auto& [key, measured] : row.measurements.by_key) {
    const store::MeasurementSeries& series = measured.series;
    out.key(key).begin_object();
    out.key("last").number(series.last.value).key("last_step").number(series.last.step);
    out.key("min").number(series.min.value).key("max").number(series.max.value);
    out.key("count").number(series.count).key("app").string(measured.handle);
    out.key("role").string(series.role).key("replica").number(int64_t{series.replica_id});
    rank_json(out, series.rank);
    out.end_object();
  }
  out.end_object();
}

}  // namespace sortie::cli
