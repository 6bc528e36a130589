// The packager payloads of docs/payloads.md P-13 as the docker packagers read and write them:
// sortie.packager_config/1, sortie.package_request/1 (one kind per call, members checked) and
// sortie.package_result/1 with "image" elements.
#ifndef SORTIE_DOCKER_PACKAGE_PAYLOADS_HPP
#define SORTIE_DOCKER_PACKAGE_PAYLOADS_HPP

#include <rapidjson/document.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::docker {

struct PackagerConfig {
  std::string name;       // the packager's registered name, for messages
  std::string state_dir;  // durable state of this packager; "" when the host gave none
};

PackagerConfig read_packager_config(std::string_view config, std::string_view kind);

// A request whose executables all have the packager's kind and only the members it knows.
class PackageRequest {
 public:
  // Throws INVALID_ARGUMENT naming the executable and member at fault.
  PackageRequest(std::string_view text, std::string_view kind,
                 std::initializer_list<const char*> members);

  const std::string& launch_dir() const { return launch_dir_; }
  size_t size() const { return executables_.size(); }
  const rapidjson::Value& executable(size_t index) const { return *executables_[index]; }
  // "executable 'trainer' (python_container)", for messages.
  std::string describe(size_t index) const;
  // `path` made absolute against launch_dir and normalised ("" stays launch_dir).
  std::string resolve(const std::string& path) const;

 private:
  rapidjson::Document document_;
  std::string kind_;
  std::string launch_dir_;
  std::vector<const rapidjson::Value*> executables_;
};

// One packaged executable: an image the local Engine has.
struct PackagedImage {
  std::string image;   // a reference or an id the Engine knows
  std::string digest;  // the image id
  bool cached = false;
};

// Calls package_one for every executable in order; an error is prefixed with the executable it
// concerns. Returns the sortie.package_result/1 text.
std::string package_each(const PackageRequest& request,
                         const std::function<PackagedImage(size_t index)>& package_one);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_PACKAGE_PAYLOADS_HPP
