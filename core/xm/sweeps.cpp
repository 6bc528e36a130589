// File: core/xm/sweeps.cpp
//
// Hyper-parameter sweeps: one Args per combination, keywords in axis order. product() follows
// itertools.product (last axis fastest), zip() follows zip() but refuses unequal lengths instead
// of silently dropping values.
#include <algorithm>
#include <set>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>

namespace sortie::xm {
namespace {

using Axes = std::vector<std::pair<std::string, std::vector<ArgValue>>>;

void check_distinct_names(const Axes& axes, const char* sweep) {
  std::set<std::string> seen;
  for (const auto& axis : axes) {
    if (!seen.insert(axis.first).second) {
      throw Error::invalid_argument(std::string(sweep) + ": axis '" + axis.first +
                                    "' appears twice; give each argument one axis");
    }
  }
}

// Refuses a sweep of more than limits::kWorkUnitsPerSweep work units before any is built: a zip
// has as many as its longest axis, a product the product of its axes' lengths.
void check_size(const Axes& axes, const char* sweep, bool is_product) {
  const size_t max_work_units = limits::value(limits::kWorkUnitsPerSweep);
  size_t count = 1;  // stops just past the limit, so that a product cannot overflow
  for (const auto& axis : axes) {
    const size_t values = std::max<size_t>(axis.second.size(), 1);
    if (!is_product) {
      count = std::max(count, values);
    } else {
      count = values > max_work_units / count ? max_work_units + 1 : count * values;
    }
  }
  check_work_unit_count(count, sweep);
}

}  // namespace

void check_work_unit_count(size_t count, const std::string& what) {
  if (count > limits::value(limits::kWorkUnitsPerSweep)) {
    throw Error::invalid_argument(
        what + ": " + limits::exceeded("the number of work units", limits::kWorkUnitsPerSweep));
  }
}

std::vector<Args> product(const Axes& axes) {
  check_distinct_names(axes, "product");
  check_size(axes, "product", true);
  std::vector<Args> combinations(1);
  for (const auto& [name, values] : axes) {
    std::vector<Args> extended;
    extended.reserve(combinations.size() * values.size());
    for (const Args& prefix : combinations) {
      for (const ArgValue& value : values) {
        extended.push_back(prefix);
        extended.back().set(name, value);
      }
    }
    combinations = std::move(extended);
  }
  return combinations;
}

std::vector<Args> zip(const Axes& axes) {
  check_distinct_names(axes, "zip");
  if (axes.empty()) return {};
  check_size(axes, "zip", false);
  const size_t length = axes.front().second.size();
  for (const auto& axis : axes) {
    if (axis.second.size() == length) continue;
    std::string lengths;
    for (const auto& [name, values] : axes) {
      if (!lengths.empty()) lengths += ", ";
      lengths += name + " has " + std::to_string(values.size());
    }
    throw Error::invalid_argument("zip: axes have different lengths (" + lengths +
                                  "); give every axis the same number of values, or use product");
  }
  std::vector<Args> combinations(length);
  for (const auto& [name, values] : axes) {
    for (size_t i = 0; i < length; ++i) combinations[i].set(name, values[i]);
  }
  return combinations;
}

}  // namespace sortie::xm
