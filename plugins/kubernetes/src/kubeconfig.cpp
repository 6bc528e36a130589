#include "kubeconfig.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sortie/plugin.hpp>
#include <sstream>
#include <vector>

#include "base64.hpp"

namespace sortie::kubernetes {
namespace {

constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

std::string env_or(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error::invalid_argument(what + ": cannot read '" + path + "'");
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// A named entry of one kubeconfig file, with the file it came from (relative paths resolve there).
struct Entry {
  YAML::Node node;
  std::string file;
};

struct MergedConfig {
  std::vector<std::string> files;
  std::string current_context;
  std::map<std::string, Entry> clusters, contexts, users;
};

void merge_file(const std::string& path, MergedConfig& merged) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw Error::invalid_argument("kubeconfig " + path + ":" + std::to_string(e.mark.line + 1) +
                                  ":" + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  merged.files.push_back(path);
  if (!root || root.IsNull()) return;
  if (!root.IsMap()) {
    throw Error::invalid_argument("kubeconfig " + path + ": expected a mapping (kind: Config)");
  }
  if (merged.current_context.empty() && root["current-context"]) {
    merged.current_context = root["current-context"].as<std::string>("");
  }
  const auto collect = [&](const char* list, const char* body, std::map<std::string, Entry>& into) {
    const YAML::Node entries = root[list];
    if (!entries || entries.IsNull()) return;
    if (!entries.IsSequence()) {
      throw Error::invalid_argument("kubeconfig " + path + ": '" + list +
                                    "' must be a list of {name, " + body + "}");
    }
    for (const YAML::Node& entry : entries) {
      const std::string name = entry["name"] ? entry["name"].as<std::string>("") : "";
      if (name.empty() || !entry[body] || !entry[body].IsMap()) {
        throw Error::invalid_argument("kubeconfig " + path + ": every entry of '" + list +
                                      "' needs a 'name' and a '" + body + "' mapping");
      }
      into.emplace(name, Entry{entry[body], path});
    }
  };
  collect("clusters", "cluster", merged.clusters);
  collect("contexts", "context", merged.contexts);
  collect("users", "user", merged.users);
}

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node value = node[key];
  if (!value || value.IsNull()) return "";
  if (!value.IsScalar())
    throw YAML::Exception(value.Mark(), std::string(key) + " must be a string");
  return value.as<std::string>();
}

std::string resolve_path(const std::string& path, const Entry& entry) {
  if (path.empty() || path[0] == '/') return path;
  return directory_of(entry.file) + "/" + path;
}

std::string decoded(const std::string& data, const std::string& what) {
  const auto text = plugins_common::base64_decode(data, {.skip_whitespace = true});
  if (!text) throw Error::invalid_argument(what + " is not valid base64");
  return *text;
}

ClusterConnection from_kubeconfig(const MergedConfig& merged, const std::string& chosen_context) {
  std::string files;
  for (const std::string& file : merged.files) files += (files.empty() ? "" : ":") + file;
  const std::string context_name = chosen_context.empty() ? merged.current_context : chosen_context;
  if (context_name.empty()) {
    throw Error::invalid_argument("kubeconfig " + files +
                                  " sets no current-context; set run option 'context' "
                                  "or run `kubectl config use-context NAME`");
  }
  const auto context = merged.contexts.find(context_name);
  if (context == merged.contexts.end()) {
    std::string known;
    for (const auto& [name, entry] : merged.contexts) known += (known.empty() ? "" : ", ") + name;
    throw Error::invalid_argument("kubeconfig " + files + " has no context '" + context_name +
                                  "' (contexts: " + (known.empty() ? "none" : known) + ")");
  }
  ClusterConnection connection;
  connection.context = context_name;
  connection.source = "kubeconfig " + files + ", context " + context_name;
  const std::string where = "kubeconfig " + context->second.file + ": ";
  try {
    const std::string cluster_name = scalar(context->second.node, "cluster");
    const std::string user_name = scalar(context->second.node, "user");
    const std::string namespace_name = scalar(context->second.node, "namespace");
    if (!namespace_name.empty()) connection.namespace_name = namespace_name;

    const auto cluster = merged.clusters.find(cluster_name);
    if (cluster == merged.clusters.end()) {
      throw Error::invalid_argument(where + "context '" + context_name + "' names cluster '" +
                                    cluster_name + "', which no kubeconfig file defines");
    }
    const YAML::Node& c = cluster->second.node;
    const std::string cluster_what =
        "kubeconfig " + cluster->second.file + ": cluster '" + cluster_name + "'";
    connection.server = scalar(c, "server");
    while (!connection.server.empty() && connection.server.back() == '/') {
      connection.server.pop_back();
    }
    if (connection.server.empty()) {
      throw Error::invalid_argument(cluster_what + " has no 'server'");
    }
    connection.ca_file = resolve_path(scalar(c, "certificate-authority"), cluster->second);
    const std::string ca_data = scalar(c, "certificate-authority-data");
    if (!ca_data.empty()) {
      connection.ca_pem = decoded(ca_data, cluster_what + " certificate-authority-data");
    }
    connection.insecure_skip_tls_verify =
        c["insecure-skip-tls-verify"] && c["insecure-skip-tls-verify"].as<bool>();
    for (const char* unsupported : {"tls-server-name", "proxy-url"}) {
      if (!scalar(c, unsupported).empty()) {
        throw Error::unimplemented(cluster_what + " sets '" + unsupported +
                                   "', which the kubernetes scheduler does not support "
                                   "yet; connect to the server directly");
      }
    }

    if (user_name.empty()) return connection;
    const auto user = merged.users.find(user_name);
    if (user == merged.users.end()) {
      throw Error::invalid_argument(where + "context '" + context_name + "' names user '" +
                                    user_name + "', which no kubeconfig file defines");
    }
    const YAML::Node& u = user->second.node;
    const std::string user_what = "kubeconfig " + user->second.file + ": user '" + user_name + "'";
    for (const char* unsupported : {"exec", "auth-provider", "username", "password"}) {
      if (u[unsupported]) {
        throw Error::unimplemented(
            user_what + " authenticates with '" + unsupported +
            "', which the kubernetes scheduler does not support; give the user a "
            "'token', 'tokenFile' or client certificate (e.g. a service account "
            "token from `kubectl create token NAME`)");
      }
    }
    connection.token = scalar(u, "token");
    connection.token_file = resolve_path(scalar(u, "tokenFile"), user->second);
    connection.client_cert_file = resolve_path(scalar(u, "client-certificate"), user->second);
    connection.client_key_file = resolve_path(scalar(u, "client-key"), user->second);
    const std::string cert_data = scalar(u, "client-certificate-data");
    if (!cert_data.empty()) {
      connection.client_cert_pem = decoded(cert_data, user_what + " client-certificate-data");
    }
    const std::string key_data = scalar(u, "client-key-data");
    if (!key_data.empty()) {
      connection.client_key_pem = decoded(key_data, user_what + " client-key-data");
    }
    const bool has_cert =
        !connection.client_cert_file.empty() || !connection.client_cert_pem.empty();
    const bool has_key = !connection.client_key_file.empty() || !connection.client_key_pem.empty();
    if (has_cert != has_key) {
      throw Error::invalid_argument(user_what + " has a client " +
                                    (has_cert ? "certificate" : "key") + " without the matching " +
                                    (has_cert ? "key" : "certificate"));
    }
  } catch (const YAML::Exception& e) {
    throw Error::invalid_argument("kubeconfig " + context->second.file + ":" +
                                  std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return connection;
}

ClusterConnection in_cluster() {
  const std::string dir = env_or("SORTIE_K8S_SERVICE_ACCOUNT_DIR", kServiceAccountDir);
  ClusterConnection connection;
  std::string host = env_or("KUBERNETES_SERVICE_HOST", "");
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // IPv6
  connection.server = "https://" + host + ":" + env_or("KUBERNETES_SERVICE_PORT", "443");
  connection.source = "in-cluster service account (" + dir + ")";
  connection.token_file = dir + "/token";
  connection.ca_file = dir + "/ca.crt";
  if (!file_exists(connection.token_file)) {
    throw Error::failed_precondition(
        "no kubeconfig found and the in-cluster service account token " + connection.token_file +
        " is missing; set run option 'kubeconfig' or $KUBECONFIG, or mount a "
        "service account token");
  }
  if (file_exists(dir + "/namespace")) {
    const std::string ns = trim(read_text_file(dir + "/namespace", "service account namespace"));
    if (!ns.empty()) connection.namespace_name = ns;
  }
  return connection;
}

}  // namespace

http::Endpoint ClusterConnection::endpoint() const {
  http::Endpoint endpoint;
  endpoint.base_url = server;
  endpoint.ca_file = ca_file;
  endpoint.ca_pem = ca_pem;
  endpoint.client_cert_file = client_cert_file;
  endpoint.client_cert_pem = client_cert_pem;
  endpoint.client_key_file = client_key_file;
  endpoint.client_key_pem = client_key_pem;
  endpoint.insecure_skip_tls_verify = insecure_skip_tls_verify;
  endpoint.bearer_token = token;
  if (!token_file.empty()) {
    endpoint.bearer_token = trim(read_text_file(token_file, "bearer token file of " + source));
  }
  endpoint.timeout_ms = 60000;
  endpoint.description = "Kubernetes API server " + server + " (" + source + ")";
  return endpoint;
}

ClusterConnection load_connection(const ConnectionChoice& choice) {
  std::string list = choice.kubeconfig;
  if (list.empty()) list = env_or("KUBECONFIG", "");
  const bool explicit_files = !list.empty();
  if (list.empty()) list = env_or("HOME", "/root") + "/.kube/config";

  MergedConfig merged;
  std::stringstream paths(list);
  for (std::string path; std::getline(paths, path, ':');) {
    if (path.empty()) continue;
    if (file_exists(path)) {
      merge_file(path, merged);
    } else if (!choice.kubeconfig.empty()) {
      throw Error::invalid_argument("run option 'kubeconfig': cannot read '" + path + "'");
    }
  }
  if (merged.files.empty()) {
    if (!env_or("KUBERNETES_SERVICE_HOST", "").empty()) {
      if (!choice.context.empty()) {
        throw Error::invalid_argument(
            "run option 'context' needs a kubeconfig, but none was found (" + list +
            ") and in-cluster configuration has no contexts");
      }
      return in_cluster();
    }
    throw Error::failed_precondition(
        std::string("no kubeconfig found (") + (explicit_files ? "$KUBECONFIG=" : "looked for ") +
        list + ") and not running in a pod; set run option 'kubeconfig' or $KUBECONFIG");
  }
  return from_kubeconfig(merged, choice.context);
}

}  // namespace sortie::kubernetes
