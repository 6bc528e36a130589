#include "app_lookup.hpp"

#include <cstdio>
#include <sortie/core/model_json.hpp>

#include "commands.hpp"

namespace sortie::cli {

AppLookup lookup_app(CliContext& ctx, const std::string& handle_text) {
  AppLookup lookup;
  lookup.handle = core::parse_app_handle(handle_text);
  lookup.scheduler = ctx.scheduler(lookup.handle.scheduler, lookup.handle.session);
  const std::string handle = lookup.handle.str();
  const bool recorded = ctx.store().get(handle).has_value();
  if (auto json = lookup.scheduler->describe(lookup.handle.app_id)) {
    lookup.status = core::status_from_json(*json, lookup.scheduler->context());
    if (recorded) ctx.store().record_status(handle, *lookup.status);
  } else if (recorded) {
    lookup.status = ctx.store().last_status(handle);
    lookup.from_store_only = true;
  }
  return lookup;
}

int report_unknown_app(const std::string& handle) {
  std::fprintf(stderr, "sortie: app %s is unknown to its scheduler and to the store\n",
               handle.c_str());
  return kExitAppNotSucceeded;
}

}  // namespace sortie::cli
