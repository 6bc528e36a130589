// `sortie list`: the apps in the store, newest first, with live states for those not yet
// terminal; with -s, also the apps the scheduler itself lists (e.g. launched elsewhere).
#include <rapidjson/document.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/session/json_text.hpp>

#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

struct Row {
  std::string handle;
  std::string name;
  std::string state;
  int64_t submitted_at = 0;
  std::string unverified;  // why the scheduler could not confirm `state`, the recorded one
};

std::string age(int64_t since_ns) {
  if (since_ns == 0) return "-";
  const int64_t s = (session::now_ns() - since_ns) / 1'000'000'000;
  if (s < 120) return std::to_string(s) + "s ago";
  if (s < 7200) return std::to_string(s / 60) + "m ago";
  if (s < 172800) return std::to_string(s / 3600) + "h ago";
  return std::to_string(s / 86400) + "d ago";
}

}  // namespace

int cmd_list(session::Session& ctx, const Args& args) {
  std::string scheduler_name;
  int limit = 0;
  po::options_description desc("list options");
  desc.add_options()("help,h", "show this help")(
      "scheduler,s", po::value(&scheduler_name),
      "only this scheduler's apps, including those it lists itself")(
      "active", "only apps that are not terminal")(
      "limit", po::value(&limit), "at most N apps (newest first)")("json", "print JSON");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << "usage: sortie list [options]\n\n" << desc;
    return kExitOk;
  }

  core::ListFilter filter;
  if (!scheduler_name.empty()) filter.scheduler = scheduler_name;
  filter.active_only = vm.count("active") != 0;
  filter.limit = limit;
  std::map<std::string, std::unique_ptr<core::SchedulerClient>> schedulers;
  auto scheduler_for = [&](const std::string& name, const std::string& session) -> auto& {
    auto& client = schedulers[name + "\n" + session];
    if (!client) client = ctx.scheduler(name, session);
    return *client;
  };

  std::vector<Row> rows;
  std::set<std::string> seen;
  for (const auto& record : ctx.store().list(filter)) {
    Row row{record.handle, record.name, core::to_string(record.state), record.submitted_at, ""};
    if (!core::is_terminal(record.state)) {
      try {
        auto& scheduler = scheduler_for(record.scheduler, record.session);
        if (auto json = scheduler.describe(record.app_id)) {
          const auto status = core::status_from_json(*json, scheduler.context());
          ctx.store().record_status(record.handle, status);
          row.state = core::to_string(status.state);
        }
      } catch (const core::Error& e) {
        row.unverified = e.what();
      }
    }
    seen.insert(row.handle);
    rows.push_back(std::move(row));
  }
  if (!scheduler_name.empty()) {
    auto& scheduler = scheduler_for(scheduler_name, ctx.options().session);
    session::JsonText list_filter;
    list_filter.begin_object()
        .key("schema")
        .string("sortie.list_filter/1")
        .key("session")
        .string(ctx.options().session)
        .end_object();
    std::string json;
    try {
      json = scheduler.list(list_filter.str());
    } catch (const core::Error& e) {
      if (e.status() != SORTIE_UNIMPLEMENTED) throw;
      std::fprintf(stderr, "sortie list: %s; showing the store's apps only\n", e.what());
      json = R"({"apps":[]})";
    }
    rapidjson::Document listed;
    listed.Parse(json.data(), json.size());
    auto apps = listed.IsObject() ? listed.FindMember("apps") : listed.MemberEnd();
    if (apps == listed.MemberEnd() || !apps->value.IsArray()) {
      throw core::Error::internal(scheduler.context() + ": list result has no 'apps' array");
    }
    for (const auto& app : apps->value.GetArray()) {
      if (!app.IsObject() || !app.HasMember("app_id") || !app["app_id"].IsString() ||
          !app.HasMember("state") || !app["state"].IsString()) {
        throw core::Error::internal(scheduler.context() +
                                    ": list entry without string app_id and state");
      }
      const std::string handle =
          core::AppHandle{scheduler_name, ctx.options().session, app["app_id"].GetString()}.str();
      if (seen.count(handle) != 0) continue;
      if (filter.active_only) {
        auto state = core::app_state_from_string(app["state"].GetString());
        if (state && core::is_terminal(*state)) continue;
      }
      const bool named = app.HasMember("name") && app["name"].IsString();
      rows.push_back(
          {handle, named ? app["name"].GetString() : "", app["state"].GetString(), 0, ""});
    }
  }

  // The scheduler's own list comes on top of the store's; --limit bounds the whole.
  if (limit > 0 && rows.size() > static_cast<size_t>(limit)) rows.resize(limit);
  if (vm.count("json") != 0) {
    session::JsonText out;
    out.begin_object().key("schema").string("sortie.cli.list/1").key("apps").begin_array();
    for (const auto& row : rows) {
      out.begin_object().key("handle").string(row.handle).key("name").string(row.name);
      out.key("state").string(row.state).key("submitted_at").number(row.submitted_at);
      out.key("unverified").string_or_null(row.unverified).end_object();
    }
    out.end_array().end_object();
    std::printf("%s\n", out.str().c_str());
    return kExitOk;
  }
  size_t width = 6;
  for (const auto& row : rows) width = std::max(width, row.handle.size());
  std::printf("%-*s  %-20s  %-10s  %s\n", static_cast<int>(width), "HANDLE", "NAME", "STATE",
              "SUBMITTED");
  for (const auto& row : rows) {
    const std::string state =
        row.unverified.empty() ? row.state : row.state + " (unverified: " + row.unverified + ")";
    std::printf("%-*s  %-20s  %-10s  %s\n", static_cast<int>(width), row.handle.c_str(),
                row.name.c_str(), state.c_str(), age(row.submitted_at).c_str());
  }
  return kExitOk;
}

}  // namespace sortie::cli
