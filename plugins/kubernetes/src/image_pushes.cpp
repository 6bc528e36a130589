#include "image_pushes.hpp"

#include <algorithm>
#include <sortie/plugin.hpp>
#include <utility>

namespace sortie::kubernetes {
namespace {

constexpr const char* kLocalImageKey = "sortie.local_image";

bool is_local_image(const Role& role) {
  return std::any_of(role.metadata.begin(), role.metadata.end(), [](const auto& entry) {
    return entry.first == kLocalImageKey && entry.second == "true";
  });
}

}  // namespace

image_push::PushOrigin push_origin() { return {"kubernetes", "image_repo", ""}; }

image_push::ImageReference remote_reference(const std::string& local_image,
                                            const std::string& image_repo) {
  std::string name = local_image;
  std::string tag = "latest";
  if (const size_t at = name.find('@'); at != std::string::npos) {
    tag = name.substr(name.find(':', at) + 1);
    name.erase(at);
  } else if (name.rfind("sha256:", 0) == 0) {  // an image id, as `docker build -q` prints it
    tag = name.substr(7);
    name = "image";
  } else if (const size_t colon = name.rfind(':');
             colon != std::string::npos && name.find('/', colon) == std::string::npos) {
    tag = name.substr(colon + 1);
    name.erase(colon);
  }
  name = name.substr(name.rfind('/') + 1);
  return image_push::parse_push_target(image_repo + "/" + name + ":" + tag,
                                       "run option 'image_repo' = '" + image_repo + "' gives");
}

std::vector<image_push::ImagePush> plan_image_pushes(AppDef& app, const std::string& image_repo) {
  std::vector<image_push::ImagePush> pushes;
  if (image_repo.empty()) return pushes;
  for (Role& role : app.roles) {
    if (!is_local_image(role)) continue;
    const std::string what = "role '" + role.name + "'";
    image_push::check_local_image_name(role.image, what + " image");
    auto same_source = std::find_if(pushes.begin(), pushes.end(),
                                    [&](const auto& push) { return push.source == role.image; });
    if (same_source == pushes.end()) {
      image_push::ImageReference target = remote_reference(role.image, image_repo);
      for (const image_push::ImagePush& push : pushes) {
        if (push.target.str() == target.str()) {
          throw Error::invalid_argument(
              what + ": image '" + role.image + "' and image '" + push.source +
              "' would both be pushed to '" + target.str() +
              "' under image_repo; give the images different names or tags");
        }
      }
      pushes.push_back({role.image, std::move(target), {role.name}});
      same_source = pushes.end() - 1;
    } else {
      same_source->roles.push_back(role.name);
    }
    role.image = same_source->target.str();
    std::erase_if(role.metadata, [](const auto& entry) { return entry.first == kLocalImageKey; });
  }
  return pushes;
}

}  // namespace sortie::kubernetes
