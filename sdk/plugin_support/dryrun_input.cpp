#include <sortie/dryrun_input.hpp>

#include "appdef_json.hpp"
#include "payload_writer.hpp"

namespace sortie {
namespace {

// An image's members; `path` names the object ("images.ROLE", "" for a document alone).
ProvidedImage image_from(const payload::Json& object, const std::string& path) {
  ProvidedImage image;
  image.img_root = payload::read_string(object, "img_root", path);
  image.cwd = payload::read_string(object, "cwd", path, image.img_root);
  image.image = payload::read_string(object, "image", path);
  return image;
}

}  // namespace

const ProvidedImage* DryrunInput::image_of(std::string_view role) const {
  for (const auto& [name, image] : images) {
    if (name == role) return &image;
  }
  return nullptr;
}

DryrunInput read_dryrun_input(std::string_view json) {
  using namespace payload;
  const rapidjson::Document document = parse_object(json, "sortie.dryrun_input/1");
  DryrunInput input;
  const Json* app = read_object(document, "app", "");
  if (app == nullptr) fail("app", "is required");
  input.app = payload::read_appdef(*app);
  input.app_json = to_text(*app);
  input.app_id = read_string(document, "app_id", "");
  input.session = read_string(document, "session", "");
  if (const Json* cfg = read_object(document, "cfg", "")) input.cfg_json = to_text(*cfg);
  if (const Json* images = read_object(document, "images", "")) {
    for (const auto& entry : images->GetObject()) {
      const std::string role(entry.name.GetString(), entry.name.GetStringLength());
      const std::string path = "images." + role;
      if (!entry.value.IsObject()) fail_type(path, "an object", entry.value);
      input.images.emplace_back(role, image_from(entry.value, path));
    }
  }
  return input;
}

std::string write_dryrun_input(const DryrunInput& input) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.dryrun_input/1");
  w.raw_member("app", write_appdef(input.app));
  w.raw_member("cfg", input.cfg_json);
  w.member("app_id", input.app_id);
  w.member("session", input.session);
  if (!input.images.empty()) {
    w.key("images");
    w.json().StartObject();
    for (const auto& [role, image] : input.images) {
      w.key(role);
      w.json().StartObject();
      w.member("img_root", image.img_root);
      w.member("cwd", image.cwd);
      if (!image.image.empty()) w.member("image", image.image);
      w.json().EndObject();
    }
    w.json().EndObject();
  }
  w.json().EndObject();
  return w.text();
}

ProvidedImage read_provided_image(std::string_view json) {
  const rapidjson::Document document = payload::parse_object(json, "sortie.image/1");
  payload::check_schema(document, "sortie.image/1");
  return image_from(document, "");
}

}  // namespace sortie
