// Test support: a fake Kubernetes API server (fake_apiserver.py) on 127.0.0.1, over TLS with
// certificates made at test time by the openssl CLI, plus kubeconfig files pointing at it.
#ifndef SORTIE_TESTS_KUBERNETES_FAKE_CLUSTER_HPP
#define SORTIE_TESTS_KUBERNETES_FAKE_CLUSTER_HPP

#include <sys/types.h>

#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace sortie::kubernetes::testing {

// Where the generated certificates are (one set per test process).
struct TestPki {
  std::string dir;
  std::string ca_cert, ca_key;
  std::string server_cert, server_key;
  std::string client_cert, client_key;  // CN=alice, signed by the CA
  std::string other_ca_cert;            // a CA that signed nothing here
};

// Returns the process's PKI, generating it on first use; empty dir when openssl is missing.
const TestPki& test_pki();

// A fresh temporary directory under the test binary dir, removed at exit of the object.
class TempDir : public ::sortie::testing::TempDir {
 public:
  TempDir();
};

struct FakeServerOptions {
  bool tls = true;
  bool client_ca = true;  // verify client certificates against the test CA
  std::vector<std::string> tokens = {"good-token=alice", "bob-token=bob"};
  std::vector<std::string> forbidden = {"bob"};
  std::vector<std::string> without;  // "volcano" / "jobset": the CRD is not installed
};

class FakeApiServer {
 public:
  explicit FakeApiServer(FakeServerOptions options = {});
  ~FakeApiServer();

  int port() const { return port_; }
  std::string url() const;
  // Moves every pod of the fake cluster one step through its scenario.
  void advance();
  // Makes the next `count` API requests whose path contains `path_part` fail with `status`.
  void fail_next(int status, int count, const std::string& path_part = "");
  // The requests received so far, as the JSON the server keeps.
  std::string requests_json();

 private:
  std::string control(const std::string& method, const std::string& path, const std::string& body);

  FakeServerOptions options_;
  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// Writes a kubeconfig with one context "test" into dir and returns its path. `user_yaml` is the
// body of the user entry (indented by 4), `cluster_extra` extra lines of the cluster entry.
std::string write_kubeconfig(const std::string& dir, const std::string& server,
                             const std::string& cluster_extra, const std::string& user_yaml,
                             const std::string& namespace_name = "team-a");

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
std::string base64(const std::string& bytes);

// True when CI=true: a missing tool is then a failure, not a skip.
bool in_ci();

}  // namespace sortie::kubernetes::testing

#endif  // SORTIE_TESTS_KUBERNETES_FAKE_CLUSTER_HPP
