#include <sortie/app_list.hpp>

#include "payload_reader.hpp"
#include "payload_writer.hpp"

namespace sortie {

ListFilter read_list_filter(std::string_view json) {
  ListFilter filter;
  if (json.empty()) return filter;
  const rapidjson::Document document = payload::parse_object(json, "sortie.list_filter/1");
  filter.session = payload::read_string(document, "session", "");
  return filter;
}

std::string write_list_filter(const ListFilter& filter) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.list_filter/1");
  w.member("session", filter.session);
  w.json().EndObject();
  return w.text();
}

std::string write_app_list(const std::vector<ListedApp>& apps) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.list/1");
  w.key("apps");
  w.json().StartArray();
  for (const ListedApp& app : apps) {
    w.json().StartObject();
    w.member("app_id", app.app_id);
    w.member("name", app.name);
    w.member("state", app_state_name(app.state));
    w.json().EndObject();
  }
  w.json().EndArray();
  w.json().EndObject();
  return w.text();
}

}  // namespace sortie
