// Packaging of executables (docs/payloads.md P-13): specs are grouped by kind and each kind's
// packager is called once with its whole batch; a result that is another spec (a Bazel target
// producing an image tarball, say) is packaged again by the packager of that spec's kind.
#ifndef SORTIE_XM_PACKAGING_HPP
#define SORTIE_XM_PACKAGING_HPP

#include <sortie/session/session.hpp>
#include <sortie/xm.hpp>
#include <string>
#include <vector>

namespace sortie::xm_impl {

// Same order as `packageables`. Throws core::Error naming the executable and packager at fault.
std::vector<xm::Executable> package_executables(session::Session& ctx,
                                                const std::string& launch_dir,
                                                const std::vector<xm::Packageable>& packageables);

}  // namespace sortie::xm_impl

#endif  // SORTIE_XM_PACKAGING_HPP
