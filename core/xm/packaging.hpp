// Packaging of executables (docs/payloads.md P-13): specs are grouped by kind and each kind's
// packager is called once with its whole batch; a result that is another spec (a Bazel target
// producing an image tarball, say) is packaged again by the packager of that spec's kind.
#ifndef SORTIE_XM_PACKAGING_HPP
#define SORTIE_XM_PACKAGING_HPP

#include <sortie/session/session.hpp>
#include <sortie/xm.hpp>
#include <string>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

// Same order as `packageables`. Throws Error naming the executable and packager at fault.
std::vector<Executable> package_executables(session::Session& ctx, const std::string& launch_dir,
                                            const std::vector<Packageable>& packageables);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_PACKAGING_HPP
