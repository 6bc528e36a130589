// Where the API server is and how to authenticate: a kubeconfig file (current or chosen context,
// its cluster and user) or, inside a pod, the service account Kubernetes mounts. Parsed with
// yaml-cpp; nothing runs kubectl.
#ifndef SORTIE_KUBERNETES_KUBECONFIG_HPP
#define SORTIE_KUBERNETES_KUBECONFIG_HPP

#include <sortie/http_client.hpp>
#include <string>

namespace sortie::kubernetes {

// What the user chose; empty members mean "the default".
struct ConnectionChoice {
  std::string kubeconfig;  // a path, or a ':'-separated list like $KUBECONFIG
  std::string context;
};

struct ClusterConnection {
  std::string source;  // "kubeconfig /root/.kube/config, context prod" or "in-cluster ..."
  std::string context;
  std::string server;  // "https://host:port", no trailing '/'
  std::string ca_file, ca_pem;
  std::string client_cert_file, client_cert_pem;
  std::string client_key_file, client_key_pem;
  std::string token;
  std::string token_file;  // read at each connection, so rotated tokens are picked up
  bool insecure_skip_tls_verify = false;
  std::string namespace_name = "default";  // the context's namespace

  // An http::Endpoint for this connection (reads token_file now).
  http::Endpoint endpoint() const;
};

// Resolves choice: the files of choice.kubeconfig, else $KUBECONFIG, else ~/.kube/config; with
// none of those present and $KUBERNETES_SERVICE_HOST set, the in-cluster service account (files
// under $SORTIE_K8S_SERVICE_ACCOUNT_DIR, default /var/run/secrets/kubernetes.io/serviceaccount).
// Several files merge as kubectl merges them: the first to define a name wins. Throws
// INVALID_ARGUMENT naming the file and entry that is wrong, UNIMPLEMENTED for authentication
// methods this plugin does not speak (exec plugins, auth-provider, basic auth).
ClusterConnection load_connection(const ConnectionChoice& choice);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_KUBECONFIG_HPP
