#include <sortie/dryrun.hpp>

#include "payload_reader.hpp"
#include "payload_writer.hpp"

namespace sortie {

std::string write_dryrun(const Dryrun& dryrun) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.dryrun/1");
  w.member("app_id", dryrun.app_id);
  w.raw_member("request", dryrun.request_json);
  if (!dryrun.text.empty()) w.member("text", dryrun.text);
  w.json().EndObject();
  return w.text();
}

Dryrun read_dryrun(std::string_view json) {
  const rapidjson::Document document = payload::parse_object(json, "sortie.dryrun/1");
  Dryrun dryrun;
  dryrun.app_id = payload::read_string(document, "app_id", "");
  if (dryrun.app_id.empty()) payload::fail("app_id", "is required");
  const payload::Json* request = payload::find(document, "request");
  if (request == nullptr) payload::fail("request", "is required");
  dryrun.request_json = payload::to_text(*request);
  dryrun.text = payload::read_string(document, "text", "");
  return dryrun;
}

SchedulerConfig read_scheduler_config(std::string_view json) {
  const rapidjson::Document document = payload::parse_object(json, "sortie.scheduler_config/1");
  SchedulerConfig config;
  config.scheduler = payload::read_string(document, "scheduler", "");
  config.session = payload::read_string(document, "session", "", "default");
  config.state_dir = payload::read_string(document, "state_dir", "");
  if (config.state_dir.empty()) payload::fail("state_dir", "is required");
  return config;
}

std::string write_scheduler_config(const SchedulerConfig& config) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.scheduler_config/1");
  w.member("scheduler", config.scheduler);
  w.member("session", config.session);
  w.member("state_dir", config.state_dir);
  w.json().EndObject();
  return w.text();
}

}  // namespace sortie
