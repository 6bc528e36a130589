// The `binary` packager (XManager's Binary): `path`, relative to the request's launch_dir, must be
// an executable regular file; it is packaged as itself, a process entrypoint with the sha256 of
// its content as digest. Nothing is built or copied, so nothing is ever cached.
#ifndef SORTIE_LOCAL_BINARY_PACKAGER_HPP
#define SORTIE_LOCAL_BINARY_PACKAGER_HPP

#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

namespace sortie::local {

class BinaryPackager : public Packager {
 public:
  // config: "sortie.packager_config/1" (nothing of it is needed).
  explicit BinaryPackager(std::string_view config);
  // request: "sortie.package_request/1" of binary executables; returns
  // "sortie.package_result/1" with one "process" element per executable.
  std::string package(std::string_view request) override;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_BINARY_PACKAGER_HPP
