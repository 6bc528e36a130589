// Runner::list: the apps in the store, newest first, with live states for those not yet
// terminal; with a scheduler, also the apps it lists itself (e.g. launched elsewhere).
#include <rapidjson/document.h>

#include <chrono>
#include <map>
#include <numeric>
#include <set>
#include <sortie/app_list.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/session/status_cache.hpp>

#include "bounded_describe.hpp"
#include "runner_impl.hpp"

namespace sortie::runner {

namespace {

// How long `list` waits for one describe unless --plugin-timeout or SORTIE_PLUGIN_TIMEOUT says.
constexpr std::chrono::milliseconds kDescribeDeadline = std::chrono::seconds(10);

// The apps `scheduler` lists in this session, not already in `seen`.
std::vector<ListedApp> scheduler_listed(session::Session& session,
                                        plugin_host::SchedulerClient& scheduler,
                                        const ListOptions& options,
                                        const std::set<std::string>& seen, AppList& list) {
  ::sortie::ListFilter filter;
  filter.session = session.options().session;
  std::string json;
  try {
    json = scheduler.list(write_list_filter(filter));
  } catch (const Error& e) {
    if (e.status() != SORTIE_UNIMPLEMENTED) throw;
    list.scheduler_unlisted = e.what();
    return {};
  }
  rapidjson::Document listed;
  listed.Parse(json.data(), json.size());
  auto apps = listed.IsObject() ? listed.FindMember("apps") : listed.MemberEnd();
  if (apps == listed.MemberEnd() || !apps->value.IsArray()) {
    throw Error::internal(scheduler.context() + ": list result has no 'apps' array");
  }
  std::vector<ListedApp> result;
  for (const auto& app : apps->value.GetArray()) {
    if (!app.IsObject() || !app.HasMember("app_id") || !app["app_id"].IsString() ||
        !app.HasMember("state") || !app["state"].IsString()) {
      throw Error::internal(scheduler.context() + ": list entry without string app_id and state");
    }
    const std::string handle =
        model::AppHandle{options.scheduler, session.options().session, app["app_id"].GetString()}
            .str();
    if (seen.count(handle) != 0) continue;
    if (options.active_only) {
      auto state = app_state_from_name(app["state"].GetString());
      if (state && model::is_terminal(*state)) continue;
    }
    const bool named = app.HasMember("name") && app["name"].IsString();
    result.push_back(
        {handle, named ? app["name"].GetString() : "", app["state"].GetString(), 0, ""});
  }
  return result;
}

}  // namespace

AppList Runner::list(const ListOptions& options) {
  session::Session& session = impl_->session();
  store::ListFilter filter;
  if (!options.scheduler.empty()) filter.scheduler = options.scheduler;
  filter.active_only = options.active_only;
  filter.limit = options.limit;
  std::map<std::string, std::shared_ptr<plugin_host::SchedulerClient>> schedulers;
  auto client_for =
      [&](const std::string& name,
          const std::string& app_session) -> std::shared_ptr<plugin_host::SchedulerClient>& {
    auto& client = schedulers[name + "\n" + app_session];
    if (!client) client = session.scheduler(name, app_session);
    return client;
  };
  // One scheduler that stops answering costs one deadline, not one per app (TRUST-11).
  const std::chrono::milliseconds deadline = session.plugin_timeout_chosen()
                                                 ? session.plugin_host().isolation().call_timeout
                                                 : kDescribeDeadline;
  std::map<std::string, std::string> silent;  // scheduler -> why its apps are not refreshed

  const std::vector<store::AppRecord> records = session.records().list(filter);
  std::vector<ListedApp> apps;
  // The apps not terminal on record, by scheduler and session: one describing thread each.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> unfinished;
  for (size_t i = 0; i < records.size(); ++i) {
    const store::AppRecord& record = records[i];
    apps.push_back(
        {record.handle, record.name, model::to_string(record.state), record.submitted_at, ""});
    if (!model::is_terminal(record.state)) {
      unfinished[{record.scheduler, record.session}].push_back(i);
    }
  }
  const size_t to_refresh =
      std::accumulate(unfinished.begin(), unfinished.end(), size_t{0},
                      [](size_t sum, const auto& group) { return sum + group.second.size(); });
  std::vector<bool> ended(records.size());   // found terminal: --active filters on fresh states
  std::vector<store::RefreshedStatus> news;  // statuses the store lacks
  size_t refreshed = 0;
  for (const auto& [scheduler_session, indices] : unfinished) {
    const std::string& scheduler_name = scheduler_session.first;
    refreshed += indices.size();
    if (auto silence = silent.find(scheduler_name); silence != silent.end()) {
      for (size_t i : indices) apps[i].unverified = silence->second;
      continue;
    }
    std::vector<Described> described;
    std::string context;
    try {
      auto& scheduler = client_for(scheduler_name, scheduler_session.second);
      context = scheduler->context();
      std::vector<std::string> app_ids;
      for (size_t i : indices) app_ids.push_back(records[i].app_id);
      const size_t before = refreshed - indices.size();
      described = describe_each_within(scheduler, app_ids, deadline, [&](size_t done) {
        if (options.progress) options.progress(before + done, to_refresh);
      });
    } catch (const Error&) {  // no such scheduler, or it failed to load
      described.resize(indices.size(), {std::nullopt, std::current_exception()});
    }
    for (size_t k = 0; k < indices.size(); ++k) {
      const store::AppRecord& record = records[indices[k]];
      ListedApp& app = apps[indices[k]];
      try {
        if (described[k].error) std::rethrow_exception(described[k].error);
        if (!described[k].json) continue;
        const auto status = model::status_from_json(*described[k].json, context);
        app.state = model::to_string(status.state);
        ended[indices[k]] = model::is_terminal(status.state);
        if (status.state != record.state || status.num_restarts != record.num_restarts) {
          news.push_back({record.handle, record.state, status});
        }
      } catch (const Error& e) {
        app.unverified = e.what();
        if (e.status() == SORTIE_DEADLINE_EXCEEDED) silent.emplace(scheduler_name, e.what());
      }
    }
  }
  session::cache_statuses(session, news);

  AppList list;
  std::set<std::string> seen;
  for (size_t i = 0; i < apps.size(); ++i) {
    seen.insert(apps[i].handle);
    if (options.active_only && ended[i]) continue;
    list.apps.push_back(std::move(apps[i]));
  }
  if (!options.scheduler.empty()) {
    auto& scheduler = *client_for(options.scheduler, session.options().session);
    for (auto& app : scheduler_listed(session, scheduler, options, seen, list)) {
      list.apps.push_back(std::move(app));
    }
  }
  // The scheduler's own list comes on top of the store's; the limit bounds the whole.
  if (options.limit > 0 && list.apps.size() > static_cast<size_t>(options.limit)) {
    list.apps.resize(static_cast<size_t>(options.limit));
  }
  return list;
}

}  // namespace sortie::runner
