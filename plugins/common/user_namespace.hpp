// Entering namespaces without privileges: a new user namespace that maps only our own ids (all
// ids for root), so the processes in it keep exactly the rights they had outside.
#ifndef SORTIE_PLUGINS_COMMON_USER_NAMESPACE_HPP
#define SORTIE_PLUGINS_COMMON_USER_NAMESPACE_HPP

namespace sortie::plugins_common {

// unshare(CLONE_NEWUSER | `other_namespaces`) and writes the id maps. False, errno set, when the
// kernel refuses (a chroot, user namespaces disabled, a multithreaded caller).
bool unshare_keeping_ids(int other_namespaces);

}  // namespace sortie::plugins_common

#endif  // SORTIE_PLUGINS_COMMON_USER_NAMESPACE_HPP
