// File: core/ui/web_assets.hpp
//
// The dashboard's page, script and style sheet, compiled into the binary from core/ui/web/ by
// embed_web_assets.cmake.
#ifndef SORTIE_UI_WEB_ASSETS_HPP
#define SORTIE_UI_WEB_ASSETS_HPP

#include <string_view>

namespace sortie::ui {

struct WebAsset {
  std::string_view name;  // the file name under web/, e.g. "dashboard.js"
  const char* content_type;
  std::string_view bytes;
};

// The asset named `name`, or null: only these names are ever served, so no request reaches the
// file system.
const WebAsset* find_web_asset(std::string_view name);

}  // namespace sortie::ui

#endif  // SORTIE_UI_WEB_ASSETS_HPP
