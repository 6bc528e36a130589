#include <rapidjson/document.h>

#include <optional>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/session/document_text.hpp>
#include <sortie/session/launcher.hpp>
#include <sortie/session/output_dir.hpp>
#include <sortie/session/submission.hpp>

namespace sortie::session {

namespace {

rapidjson::Document parse_object(const std::string& json, const std::string& what) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    throw Error::internal(what + " is not a JSON object");
  }
  return doc;
}

// A submission the scheduler refused never existed. A store that cannot delete it leaves the
// UNSUBMITTED record for the next command to settle (FAILED), and the scheduler's error is the
// one worth reporting.
void forget_or_keep(store::AppStore& store, const std::string& handle) {
  try {
    store.forget(handle);
  } catch (const Error&) {
  }
}

}  // namespace

Launcher::Launcher(Session& ctx, plugin_host::SchedulerClient& scheduler)
    : ctx_(ctx), scheduler_(scheduler) {}

std::vector<std::pair<std::string, ProvidedImage>> Launcher::fetch_images(
    const AppDef& app, const std::string& provider) {
  const registry::Entry* entry = ctx_.registry().find(registry::Group::kImageProviders, provider);
  if (entry == nullptr) {
    throw Error::not_found("run option image_provider=" + provider +
                           ": no image provider of that name (see `sortie "
                           "plugins list`)");
  }
  auto client = ctx_.plugin_host().image_provider(*entry, ctx_.image_provider_config(provider));
  std::vector<std::pair<std::string, ProvidedImage>> images;
  for (const auto& role : app.roles) {
    const std::string answer = client->fetch(write_role(role));
    try {
      images.emplace_back(role.name, read_provided_image(answer));
    } catch (const Error& e) {
      throw Error::internal(client->context() + ": fetch returned an invalid payload: " + e.what() +
                            " (docs/payloads.md); this is a bug in the plugin");
    }
  }
  return images;
}

DryRunResult Launcher::dryrun(const LaunchPlan& plan) {
  return dryrun_recorded(plan, model::resolve_runopts(scheduler_.declared_run_options(),
                                                      plan.raw_cfg, plan.scheduler));
}

DryRunResult Launcher::dryrun_recorded(const LaunchPlan& plan, const std::string& cfg_json) {
  DryrunInput input;
  input.app = plan.app;
  input.cfg_json = cfg_json;
  input.app_id = model::make_app_id(plan.app.name);
  input.session = plan.session;
  input.app.output_dir =
      plan.work_unit
          ? work_unit_output_dir(plan.work_unit->experiment_id, plan.work_unit->work_unit_id)
          : app_output_dir(plan.scheduler, plan.session, input.app_id);

  DryRunResult result;
  result.app_json = write_appdef(input.app);
  result.cfg_json = cfg_json;
  result.output_dir = input.app.output_dir;
  const rapidjson::Document cfg = parse_object(result.cfg_json, "resolved run options");
  if (auto it = cfg.FindMember("image_provider");
      it != cfg.MemberEnd() && it->value.IsString() && it->value.GetStringLength() > 0) {
    input.images = fetch_images(plan.app, it->value.GetString());
  }

  result.dryrun_json = scheduler_.dryrun(write_dryrun_input(input));
  const rapidjson::Document dry =
      parse_object(result.dryrun_json, scheduler_.context() + " dryrun");
  auto app_id = dry.FindMember("app_id");
  if (app_id == dry.MemberEnd() || !app_id->value.IsString() ||
      app_id->value.GetStringLength() == 0) {
    throw Error::internal(scheduler_.context() + ": dryrun result has no string 'app_id'");
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
  create_output_dir(dry.output_dir);
  const store::AppRecord record = record_unsubmitted(plan, dry);
  std::string app_id;
  try {
    app_id = scheduler_.schedule(dry.dryrun_json);
  } catch (const Error&) {
    forget_or_keep(ctx_.store(), record.handle);
    throw;
  }
  confirm(record, app_id);
  return record.handle;
}

std::vector<std::string> Launcher::schedule_batch(const std::vector<LaunchPlan>& plans,
                                                  const std::vector<DryRunResult>& dries) {
  std::vector<store::AppRecord> records;
  std::vector<std::string> requests;
  for (const DryRunResult& dry : dries) create_output_dir(dry.output_dir);
  try {
    for (size_t i = 0; i < plans.size(); ++i) {
      records.push_back(record_unsubmitted(plans[i], dries[i]));
      requests.push_back(dries[i].dryrun_json);
    }
  } catch (const Error&) {
    // One app could not be recorded (its work unit's attempt is another command's): the batch
    // goes nowhere, so the apps recorded before it never existed either.
    for (const store::AppRecord& record : records) forget_or_keep(ctx_.store(), record.handle);
    throw;
  }
  std::vector<std::string> app_ids;
  try {
    app_ids = scheduler_.schedule_batch(requests);
  } catch (const Error& error) {
    throw Error(error.status(), error.what() + settle_failed_batch(records));
  }
  std::vector<std::string> handles;
  for (size_t i = 0; i < records.size(); ++i) {
    confirm(records[i], app_ids[i]);
    handles.push_back(records[i].handle);
  }
  return handles;
}

std::string Launcher::settle_failed_batch(const std::vector<store::AppRecord>& records) {
  // All or nothing is the plugin's promise (ABI-14); the host does not rely on it, so that no
  // app of a failed batch runs unrecorded. Each app is asked for: one the scheduler does not
  // know never ran and is forgotten; one it knows is cancelled and stays on record; one it
  // cannot tell about stays UNSUBMITTED for the next command to settle (submission.hpp).
  std::vector<std::string> cancelled, running, unsettled;
  for (const store::AppRecord& record : records) {
    std::optional<std::string> described;
    try {
      described = scheduler_.describe(record.app_id);
    } catch (const Error&) {
      unsettled.push_back(record.handle);
      continue;
    }
    if (!described) {
      forget_or_keep(ctx_.store(), record.handle);
      continue;
    }
    model::AppStatus status;
    try {
      status = model::status_from_json(*described, scheduler_.context());
      scheduler_.cancel(record.app_id);
      status.state = model::AppState::kCancelled;
      status.msg = "cancelled by sortie: the batch it was submitted in failed";
      cancelled.push_back(record.handle);
    } catch (const Error& cancel_error) {
      status.app_id = record.app_id;
      status.state = model::AppState::kSubmitted;
      status.msg = std::string("submitted by a batch that failed, and not cancelled: ") +
                   cancel_error.what();
      running.push_back(record.handle);
    }
    try {
      ctx_.store().record_status(record.handle, status);
    } catch (const Error&) {
      // Still UNSUBMITTED: the next command settles it from the scheduler's word.
    }
  }
  const auto join = [](const std::vector<std::string>& handles) {
    std::string text;
    for (const std::string& handle : handles) text += (text.empty() ? "" : ", ") + handle;
    return text;
  };
  std::string said;
  if (!cancelled.empty()) {
    said += "; the scheduler had submitted part of the batch, so sortie cancelled " +
            join(cancelled) + " (recorded CANCELLED)";
  }
  if (!running.empty()) {
    said += "; the scheduler had submitted " + join(running) +
            " and they could not be cancelled: they are recorded, see `sortie status`";
  }
  if (!unsettled.empty()) {
    said += "; the scheduler could not say whether it submitted " + join(unsettled) +
            ": they stay recorded as submitting and the next sortie command settles them";
  }
  return said;
}

store::AppRecord Launcher::record_unsubmitted(const LaunchPlan& plan, const DryRunResult& dry) {
  // Recorded before anything runs (submission.hpp): a store that cannot record stops the launch,
  // and a submitter killed from here on leaves a record the next sortie command settles.
  store::AppRecord record;
  record.handle = model::AppHandle{plan.scheduler, plan.session, dry.app_id}.str();
  record.scheduler = plan.scheduler;
  record.session = plan.session;
  record.app_id = dry.app_id;
  record.name = plan.app.name;
  record.state = model::AppState::kUnsubmitted;
  record.msg = submitting_message();
  record.appdef_json = dry.app_json;
  record.request_json = dry.dryrun_json;
  record.cfg_json = dry.cfg_json;
  record.submitted_at = now_ns();
  record.updated_at = record.submitted_at;
  ctx_.store().record_submission(record, plan.work_unit);
  return record;
}

void Launcher::confirm(const store::AppRecord& record, const std::string& app_id) {
  if (app_id != record.app_id) {
    throw Error::internal(scheduler_.context() + ": schedule() returned app id '" + app_id +
                          "', not the dry run's '" + record.app_id + "'");
  }
  model::AppStatus outcome;
  outcome.app_id = record.app_id;
  outcome.state = model::AppState::kSubmitted;
  try {
    ctx_.store().record_status(record.handle, outcome);
  } catch (const Error& e) {
    // Unconfirmed, the app must not run unrecorded: cancel it (the next command settles the
    // record from what the scheduler then reports).
    std::string cancelled = "was cancelled";
    try {
      scheduler_.cancel(app_id);
    } catch (const Error& cancel_error) {
      cancelled = std::string("could not be cancelled either (") + cancel_error.what() + ")";
    }
    throw Error(e.status(),
                "app " + record.handle + " " + cancelled +
                    ": its submission could not be confirmed in the store: " + e.what());
  }
}

}  // namespace sortie::session
