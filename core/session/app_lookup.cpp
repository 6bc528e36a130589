#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/measurement_collector.hpp>
#include <sortie/session/status_cache.hpp>

namespace sortie::session {

plugin_host::SchedulerClient& AppLookup::loaded_scheduler() const {
  if (!scheduler) {
    throw Error::failed_precondition("app " + handle.str() + ": " + not_refreshed);
  }
  return *scheduler;
}

namespace {

// The first process that sees an app ended reads its measurements to the end (docs/experiments.md
// XF-36), while its scheduler still has the logs, whoever asks for them later. A failure leaves
// them unfinished, for the next reader to try; it never fails the lookup.
void finish_measurements(Session& ctx, const AppLookup& lookup) {
  try {
    collect_measurements(ctx, lookup);
  } catch (const Error&) {
  }
}

}  // namespace

AppLookup lookup_app(Session& ctx, const std::string& handle_text) {
  AppLookup lookup;
  lookup.handle = model::parse_app_handle(handle_text);
  const std::string handle = lookup.handle.str();
  const bool recorded = ctx.records().get(handle).has_value();
  if (recorded &&
      ctx.registry().find(registry::Group::kSchedulers, lookup.handle.scheduler) == nullptr) {
    // An app recorded here ran on a plugin since removed: its record is all there is.
    lookup.status = ctx.records().last_status(handle);
    lookup.from_store_only = true;
    lookup.not_refreshed = "its scheduler '" + lookup.handle.scheduler +
                           "' is not on the plugin search path, so its state cannot be "
                           "refreshed (see `sortie plugins list`)";
    return lookup;
  }
  lookup.scheduler = ctx.scheduler(lookup.handle.scheduler, lookup.handle.session);
  if (auto json = lookup.scheduler->describe(lookup.handle.app_id)) {
    lookup.status = model::status_from_json(*json, lookup.scheduler->context());
    if (recorded) cache_status(ctx, handle, *lookup.status);
    if (recorded && model::is_terminal(lookup.status->state)) finish_measurements(ctx, lookup);
  } else if (recorded) {
    lookup.status = ctx.records().last_status(handle);
    lookup.from_store_only = true;
  }
  return lookup;
}

}  // namespace sortie::session
