#include <sortie/dryrun_input.hpp>

#include "appdef_json.hpp"

namespace sortie {

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
      ProvidedImage image;
      image.img_root = read_string(entry.value, "img_root", path);
      image.cwd = read_string(entry.value, "cwd", path, image.img_root);
      image.image = read_string(entry.value, "image", path);
      input.images.emplace_back(role, std::move(image));
    }
  }
  return input;
}

}  // namespace sortie
