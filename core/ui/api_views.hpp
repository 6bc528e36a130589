// File: core/ui/api_views.hpp
//
// The dashboard's JSON documents (schema sortie.ui.*/1, docs/ui.md), read through the runner API
// and the store.
#ifndef SORTIE_UI_API_VIEWS_HPP
#define SORTIE_UI_API_VIEWS_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "curve_downsampling.hpp"
#include "worker_context.hpp"

namespace sortie::ui {

// The values of an app's secret env vars, from its definition as the store recorded it (empty:
// none, an app run outside this store). Every answer about the app masks them, with the functions
// `sortie describe` masks them with (sortie/model/secret_env.hpp, docs/config-trust.md TRUST-7).
std::vector<std::string> secrets_of(const std::string& app_json);
// The same for the app `handle` of `store`; none for an app it has not recorded.
std::vector<std::string> recorded_secrets(const store::AppStore& store, const std::string& handle);

// Every experiment, newest first, with how many of its work units are in each state.
std::string experiments_json(WorkerContext& context);
// A page of a long list: at most `limit` entries after the cursor `after` (empty: from the
// first). Each answer says the whole list's `total` and the `next` cursor (null after the last).
struct Page {
  int64_t limit = 0;
  std::string after;
};

// One experiment with a page of its work units (after: a work unit id), each with its args (the
// sweep's hyperparameters), jobs and states; nullopt for an unknown id.
std::optional<std::string> experiment_json(WorkerContext& context, int64_t id, const Page& page);
// A page of the store's apps, newest first (after: the handle of the previous page's last app),
// as recorded: the status refresher keeps the active ones' states current, so a list never waits
// for a scheduler however many viewers ask.
std::string apps_json(WorkerContext& context, const Page& page);
// One recorded app: its roles, replicas (states, exit codes, restarts, messages) and events.
// Its secrets are masked wherever they show, as in `sortie describe --json`.
std::string app_json(WorkerContext& context, const std::string& handle);
// The app's measured series (sortie.ui.metrics/1), only `key`'s when not empty, each with its
// points in `window` after index `after` (-1: all) as [index, step, value, ms since the epoch],
// read up to date from its logs first (Runner::metrics). `last_index` (when given) gets each
// series' last index, by "ROLE/REPLICA/KEY".
std::string metrics_json(WorkerContext& context, const std::string& handle, const std::string& key,
                         const CurveWindow& window = {},
                         const std::map<std::string, int64_t>& after = {},
                         std::map<std::string, int64_t>* last_index = nullptr);
// One event of the store's events table, as the event stream sends it.
std::string event_json(const store::AppEvent& event);

}  // namespace sortie::ui

#endif  // SORTIE_UI_API_VIEWS_HPP
