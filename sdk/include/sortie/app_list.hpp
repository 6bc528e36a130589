// What list() is given and returns: sortie.list_filter/1 and sortie.list/1 (docs/payloads.md
// P-9). Part of Sortie::plugin_support.
#ifndef SORTIE_APP_LIST_HPP
#define SORTIE_APP_LIST_HPP

#include <string>
#include <string_view>
#include <vector>

#include "app_state.hpp"

namespace sortie {

struct ListFilter {
  std::string session;  // "" = every session
};

// Reads sortie.list_filter/1 JSON text; "" (no filter) lists everything.
ListFilter read_list_filter(std::string_view json);
// The sortie.list_filter/1 JSON text.
std::string write_list_filter(const ListFilter& filter);

struct ListedApp {
  std::string app_id;
  std::string name;
  AppState state = AppState::kUnknown;
};

// The sortie.list/1 JSON text.
std::string write_app_list(const std::vector<ListedApp>& apps);

}  // namespace sortie

#endif  // SORTIE_APP_LIST_HPP
