// What the kubernetes scheduler refuses in a sortie.appdef/1 beyond the SDK reader's checks,
// with an error naming the role and field.
#ifndef SORTIE_KUBERNETES_APP_SPEC_HPP
#define SORTIE_KUBERNETES_APP_SPEC_HPP

#include <sortie/appdef.hpp>

namespace sortie::kubernetes {

// Throws INVALID_ARGUMENT for a field the kubernetes scheduler cannot honour.
void refuse_unsupported(const AppDef& app);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_APP_SPEC_HPP
