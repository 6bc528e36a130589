#include "unit_list.hpp"

#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>

namespace sortie::cli {
namespace {

// A positive id, at most 9 digits so that it fits an int.
int unit_id(const std::string& text, const std::string& item) {
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos || std::stoi(text) == 0) {
    throw Error::invalid_argument("--units: '" + item +
                                  "' is not a work unit id or a range of them (e.g. "
                                  "--units 3,7-9)");
  }
  return std::stoi(text);
}

}  // namespace

std::vector<int> parse_unit_list(const std::string& text) {
  std::vector<int> ids;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const size_t dash = item.find('-');
    const int first = unit_id(item.substr(0, dash), item);
    const int last = dash == std::string::npos ? first : unit_id(item.substr(dash + 1), item);
    if (last < first) {
      throw Error::invalid_argument("--units: the range '" + item + "' runs backwards");
    }
    // Checked before the range is spelled out: "1-999999999" allocates nothing.
    xm::check_work_unit_count(ids.size() + static_cast<size_t>(last - first) + 1,
                              "--units '" + text + "'");
    for (int id = first; id <= last; ++id) ids.push_back(id);
    start = end + 1;
  }
  return ids;
}

}  // namespace sortie::cli
