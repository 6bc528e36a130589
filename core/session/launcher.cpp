#include <rapidjson/document.h>

#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/session/document_text.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/launcher.hpp>

namespace sortie::session {

namespace {

rapidjson::Document parse_object(const std::string& json, const std::string& what) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    throw core::Error::internal(what + " is not a JSON object");
  }
  return doc;
}

}  // namespace

Launcher::Launcher(Session& ctx, core::SchedulerClient& scheduler)
    : ctx_(ctx), scheduler_(scheduler) {}

std::string Launcher::fetch_images(const core::AppDef& app, const std::string& provider) {
  const registry::Entry* entry = ctx_.registry().find(registry::Group::kImageProviders, provider);
  if (entry == nullptr) {
    throw core::Error::not_found("run option image_provider=" + provider +
                                 ": no image provider of that name (see `sortie "
                                 "plugins list`)");
  }
  auto client = ctx_.plugin_host().image_provider(*entry, ctx_.image_provider_config(provider));
  JsonText images;
  images.begin_object();
  for (const auto& role : app.roles) images.key(role.name).raw(client->fetch(core::to_json(role)));
  images.end_object();
  return images.str();
}

DryRunResult Launcher::dryrun(const LaunchPlan& plan) {
  DryRunResult result;
  const auto opts = scheduler_.declared_run_options();
  result.cfg_json = core::resolve_runopts(opts, plan.raw_cfg, plan.scheduler);

  std::string images;
  const rapidjson::Document cfg = parse_object(result.cfg_json, "resolved run options");
  if (auto it = cfg.FindMember("image_provider");
      it != cfg.MemberEnd() && it->value.IsString() && it->value.GetStringLength() > 0) {
    images = fetch_images(plan.app, it->value.GetString());
  }

  JsonText input;
  input.begin_object()
      .key("schema")
      .string("sortie.dryrun_input/1")
      .key("app")
      .raw(core::to_json(plan.app))
      .key("cfg")
      .raw(result.cfg_json)
      .key("app_id")
      .string(core::make_app_id(plan.app.name))
      .key("session")
      .string(plan.session);
  if (!images.empty()) input.key("images").raw(images);
  input.end_object();

  result.dryrun_json = scheduler_.dryrun(input.str());
  const rapidjson::Document dry =
      parse_object(result.dryrun_json, scheduler_.context() + " dryrun");
  auto app_id = dry.FindMember("app_id");
  if (app_id == dry.MemberEnd() || !app_id->value.IsString() ||
      app_id->value.GetStringLength() == 0) {
    throw core::Error::internal(scheduler_.context() + ": dryrun result has no string 'app_id'");
  }
  result.app_id = app_id->value.GetString();
  if (auto request = dry.FindMember("request"); request != dry.MemberEnd()) {
    result.request_pretty = pretty_json(request->value);
  }
  if (auto text = dry.FindMember("text"); text != dry.MemberEnd() && text->value.IsString()) {
    result.text = text->value.GetString();
  }
  return result;
}

std::string Launcher::schedule(const LaunchPlan& plan, const DryRunResult& dry) {
  ctx_.store();  // opened first: a broken store must stop the launch
  return record(plan, dry, scheduler_.schedule(dry.dryrun_json));
}

std::vector<std::string> Launcher::schedule_batch(const std::vector<LaunchPlan>& plans,
                                                  const std::vector<DryRunResult>& dries) {
  ctx_.store();  // opened first: a broken store must stop the launch
  std::vector<std::string> requests;
  for (const DryRunResult& dry : dries) requests.push_back(dry.dryrun_json);
  const std::vector<std::string> app_ids = scheduler_.schedule_batch(requests);
  std::vector<std::string> handles;
  for (size_t i = 0; i < plans.size(); ++i)
    handles.push_back(record(plans[i], dries[i], app_ids[i]));
  return handles;
}

std::string Launcher::record(const LaunchPlan& plan, const DryRunResult& dry,
                             const std::string& app_id) {
  core::AppStore& store = ctx_.store();
  core::AppRecord record;
  record.handle = core::AppHandle{plan.scheduler, plan.session, app_id}.str();
  record.scheduler = plan.scheduler;
  record.session = plan.session;
  record.app_id = app_id;
  record.name = plan.app.name;
  record.state = core::AppState::kSubmitted;
  record.appdef_json = core::to_json(plan.app);
  record.request_json = dry.dryrun_json;
  record.cfg_json = dry.cfg_json;
  record.submitted_at = now_ns();
  record.updated_at = record.submitted_at;
  try {
    store.record_submission(record);
  } catch (const core::Error& e) {
    throw core::Error(e.status(), "app submitted as " + record.handle +
                                      " but not recorded in the store: " + e.what());
  }
  return record.handle;
}

}  // namespace sortie::session
