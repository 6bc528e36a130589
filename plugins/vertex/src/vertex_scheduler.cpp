#include "vertex_scheduler.hpp"

#include <set>
#include <sortie/app_list.hpp>
#include <sortie/app_state.hpp>

#include "custom_job_builder.hpp"
#include "job_status.hpp"
#include "json_fields.hpp"
#include "run_options.hpp"

namespace sortie::vertex {
namespace {

std::string logs_url(const std::string& job_name) {
  const std::string project = job_name.substr(9, job_name.find('/', 9) - 9);
  const std::string job_id = job_name.substr(job_name.rfind('/') + 1);
  return "https://console.cloud.google.com/logs/query;query=resource.type%3D%22ml_job%22%20"
         "resource.labels.job_id%3D%22" +
         job_id + "%22?project=" + project;
}

}  // namespace

VertexScheduler::VertexScheduler(std::string_view config) {
  const std::string what = "sortie.scheduler_config/1";
  const rapidjson::Document document = plugins_common::parse_object(config, what);
  const std::string state_dir = plugins_common::string_member(document, "state_dir", what);
  if (state_dir.empty()) throw Error::invalid_argument(what + ": 'state_dir' is required");
  records_ = AppRecords(state_dir);
  session_ = plugins_common::string_member(document, "session", what, "default");
}

std::string VertexScheduler::run_options() { return run_options_payload(); }

std::string VertexScheduler::dryrun(std::string_view input) {
  return build_dryrun(input, session_);
}

std::string VertexScheduler::schedule(std::string_view request_text) {
  const std::string what = "sortie.dryrun/1 of the vertex scheduler";
  const rapidjson::Document request = plugins_common::parse_object(request_text, what);
  const rapidjson::Value* job = plugins_common::object_member(request, "request", what);
  const rapidjson::Value* vertex = plugins_common::object_member(request, "vertex", what);
  const rapidjson::Value* connection_json =
      vertex == nullptr ? nullptr : plugins_common::object_member(*vertex, "connection", what);
  if (job == nullptr || connection_json == nullptr) {
    throw Error::invalid_argument(
        what +
        ": 'request' and 'vertex.connection' are required; pass what dryrun "
        "returned");
  }
  const std::string parent = plugins_common::string_member(*vertex, "parent", what);
  const Connection connection = connection_from_json(*connection_json, what);
  if (const rapidjson::Value* pushes = plugins_common::find_member(*vertex, "image_pushes")) {
    VertexApi& api = api_for(connection);
    image_push::push_images(image_push::image_pushes_from_json(*pushes, what),
                            plugins_common::number_member(*vertex, "push_timeout", what,
                                                          VertexOptions().push_timeout_s),
                            push_origin(), [&api] { return api.access_token(); });
  }
  const rapidjson::Document created =
      api_for(connection).create_custom_job(parent, plugins_common::to_json_text(*job));
  const std::string job_name = plugins_common::string_member(created, "name", "created CustomJob");
  AppRecord record{app_id_for_job(job_name), job_name, connection};
  records_.save(record);
  return record.app_id;
}

std::string VertexScheduler::describe(std::string_view app_id) {
  const AppRecord record = records_.load(std::string(app_id));
  const rapidjson::Document job = api_for(record.connection).get_custom_job(record.job_name);
  return status_payload(record.app_id, job);
}

std::string VertexScheduler::list(std::string_view filter_text) {
  std::string session = read_list_filter(filter_text).session;
  if (session.empty()) session = session_;
  const std::string label_filter =
      std::string("labels.") + kSessionLabel + "=\"" + label_value(session) + "\"";
  std::vector<ListedApp> apps;
  std::set<std::string> seen_parents;
  std::set<std::string> seen_jobs;
  for (const AppRecord& record : records_.all()) {
    const std::string parent = parent_of_job(record.job_name);
    if (!seen_parents.insert(record.connection.endpoint + " " + parent).second) continue;
    std::string page_token;
    do {
      const rapidjson::Document page =
          api_for(record.connection).list_custom_jobs(parent, label_filter, page_token);
      if (const rapidjson::Value* jobs =
              plugins_common::array_member(page, "customJobs", "list answer")) {
        for (const rapidjson::Value& job : jobs->GetArray()) {
          const std::string name = plugins_common::string_member(job, "name", "listed CustomJob");
          if (!seen_jobs.insert(name).second) continue;
          apps.push_back(
              {app_id_for_job(name),
               plugins_common::string_member(job, "displayName", "listed CustomJob"),
               app_state_for(plugins_common::string_member(job, "state", "listed CustomJob"))});
        }
      }
      page_token = plugins_common::string_member(page, "nextPageToken", "list answer");
    } while (!page_token.empty());
  }
  return write_app_list(apps);
}

void VertexScheduler::cancel(std::string_view app_id) {
  const AppRecord record = records_.load(std::string(app_id));
  VertexApi& api = api_for(record.connection);
  // An ended job stays as it ended: the API would refuse to cancel it (400), sortie's cancel of
  // a terminal app succeeds and changes nothing.
  const rapidjson::Document job = api.get_custom_job(record.job_name);
  if (is_terminal(app_state_for(plugins_common::string_member(job, "state", "CustomJob")))) return;
  api.cancel_custom_job(record.job_name);
}

std::unique_ptr<LogStream> VertexScheduler::log_open(std::string_view app_id,
                                                     std::string_view /*request*/) {
  const std::string job_name = job_name_for_app(std::string(app_id));
  throw Error::unimplemented("logs are in Cloud Logging: " + logs_url(job_name) +
                             " (or `gcloud logging read 'resource.type=\"ml_job\" AND "
                             "resource.labels.job_id=\"" +
                             job_name.substr(job_name.rfind('/') + 1) + "\"'`)");
}

VertexApi& VertexScheduler::api_for(const Connection& connection) {
  rapidjson::Document key_doc;
  const std::string key =
      plugins_common::to_json_text(connection_to_json(connection, key_doc.GetAllocator()));
  auto it = apis_.find(key);
  if (it == apis_.end()) it = apis_.emplace(key, std::make_unique<VertexApi>(connection)).first;
  return *it->second;
}

}  // namespace sortie::vertex
