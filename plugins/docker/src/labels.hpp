// The labels that tie containers and networks to an app, so that any process can find them.
#ifndef SORTIE_DOCKER_LABELS_HPP
#define SORTIE_DOCKER_LABELS_HPP

namespace sortie::docker::labels {

inline constexpr const char* kScheduler = "sortie.scheduler";
inline constexpr const char* kSession = "sortie.session";
inline constexpr const char* kAppId = "sortie.app_id";
inline constexpr const char* kAppName = "sortie.app_name";
inline constexpr const char* kRole = "sortie.role";
inline constexpr const char* kRoleIndex = "sortie.role_index";
inline constexpr const char* kReplicaId = "sortie.replica_id";
inline constexpr const char* kNumReplicas = "sortie.num_replicas";

}  // namespace sortie::docker::labels

#endif  // SORTIE_DOCKER_LABELS_HPP
