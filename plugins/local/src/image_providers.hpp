// The "cwd" and "dir" image providers, and the rule both schedulers fall back on when the host
// ran no provider: local_cwd runs a role in the submitting process's working directory and
// ignores its image; local_dir runs it in its image, which must be an existing absolute directory.
#ifndef SORTIE_LOCAL_IMAGE_PROVIDERS_HPP
#define SORTIE_LOCAL_IMAGE_PROVIDERS_HPP

#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

#include "run_options.hpp"

namespace sortie::local {

struct ImageLocation {
  std::string img_root;
  std::string cwd;
};

// Throws INVALID_ARGUMENT (empty or relative image) or NOT_FOUND (no such directory), naming the
// role and the image path.
ImageLocation resolve_image(ImageMode mode, std::string_view role_name, std::string_view image);

// role: "sortie.role/1"; returns "sortie.image/1".
std::string fetch_image(ImageMode mode, std::string_view role);

class CwdImageProvider : public ImageProvider {
 public:
  explicit CwdImageProvider(std::string_view /*config*/) {}
  std::string fetch(std::string_view role) override { return fetch_image(ImageMode::kCwd, role); }
};

class DirImageProvider : public ImageProvider {
 public:
  explicit DirImageProvider(std::string_view /*config*/) {}
  std::string fetch(std::string_view role) override { return fetch_image(ImageMode::kDir, role); }
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_IMAGE_PROVIDERS_HPP
