// Calls to the Kubernetes API server over sortie::http, with API errors turned into sortie
// errors whose message says what was attempted, what the server answered (its Status object)
// and what to check: 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404 NOT_FOUND, 409
// ALREADY_EXISTS, 400/422 INVALID_ARGUMENT, 429/5xx UNAVAILABLE.
#ifndef SORTIE_KUBERNETES_API_CLIENT_HPP
#define SORTIE_KUBERNETES_API_CLIENT_HPP

#include <optional>
#include <sortie/http_client.hpp>
#include <string>

#include "json.hpp"
#include "kubeconfig.hpp"

namespace sortie::kubernetes {

class ApiClient {
 public:
  explicit ApiClient(ClusterConnection connection);

  const ClusterConnection& connection() const { return connection_; }

  // `what` names the operation in errors: "create Job 'x' in namespace 'y'".
  rapidjson::Document get(const std::string& path, const std::string& what);
  // nullopt on 404.
  std::optional<rapidjson::Document> get_if_exists(const std::string& path,
                                                   const std::string& what);
  rapidjson::Document post(const std::string& path, const std::string& body,
                           const std::string& what);
  // Deletes with propagationPolicy=Background (dependents go too). False on 404.
  bool remove(const std::string& path, const std::string& what);
  // A text body (pod logs); nullopt on 400, which the log endpoint answers for a container
  // that has not started.
  std::optional<std::string> get_text(const std::string& path, const std::string& what);
  // Streams a body to on_chunk and returns the response (status and headers) without judging
  // it: sortie::http hands every body to on_chunk, an error's too, so the caller tells log text
  // from an error body and calls fail() with the latter.
  http::Response stream(const std::string& path, const http::ChunkHandler& on_chunk,
                        const std::string& what);
  [[noreturn]] void fail(const http::Response& response, const std::string& what) const;

 private:
  http::Response send(const http::Request& request, const std::string& what,
                      const http::ChunkHandler* on_chunk = nullptr);

  ClusterConnection connection_;
  http::Client client_;
};

// The list URL of a collection with a label selector.
std::string with_label_selector(const std::string& collection, const std::string& selector);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_API_CLIENT_HPP
