// Reads and deletes an app's objects through the API: the top-level objects of its kind, its
// pods, and the status computed from both.
#ifndef SORTIE_KUBERNETES_APP_READER_HPP
#define SORTIE_KUBERNETES_APP_READER_HPP

#include <string>

#include "api_client.hpp"
#include "app_ref.hpp"
#include "app_status.hpp"

namespace sortie::kubernetes {

// "sortie.dev/app=NAME", which selects the app's top-level objects and pods.
std::string app_selector(const AppRef& ref);

rapidjson::Document read_app_pods(ApiClient& client, const AppRef& ref);

// NOT_FOUND when the app has no objects (never submitted, deleted, or another cluster).
KubernetesApp read_app_status(ApiClient& client, const AppRef& ref);

// Deletes the app's top-level objects; their pods follow (background propagation). Returns how
// many objects were deleted.
int delete_app(ApiClient& client, const AppRef& ref);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_APP_READER_HPP
