// kubeconfig and in-cluster configuration, proven against the fake API server over TLS: every
// credential variant must actually authenticate (or fail with a clear error).
#include "kubeconfig.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sortie/plugin.hpp>

#include "api_client.hpp"
#include "fake_cluster.hpp"

namespace sortie::kubernetes {
namespace {

using testing::FakeApiServer;
using testing::TempDir;
using testing::test_pki;
using testing::write_file;
using testing::write_kubeconfig;

class KubernetesKubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test_pki().dir.empty()) {
      if (testing::in_ci()) FAIL() << "openssl is required (CI=true)";
      GTEST_SKIP() << "openssl is not installed";
    }
  }

  // Lists Jobs in the connection's namespace; throws sortie::Error when the server refuses.
  static void list_jobs(const ClusterConnection& connection) {
    ApiClient client(connection);
    client.get("/apis/batch/v1/namespaces/" + connection.namespace_name + "/jobs", "list jobs");
  }

  static Code code_of(const std::function<void()>& call, std::string* message = nullptr) {
    try {
      call();
    } catch (const Error& e) {
      if (message != nullptr) *message = e.what();
      return e.code();
    }
    return Code::kOk;
  }

  TempDir dir_;
};

TEST_F(KubernetesKubeconfigTest, TokenWithCaFile) {
  FakeApiServer server;
  const std::string path = write_kubeconfig(
      dir_.path(), server.url(), "    certificate-authority: " + test_pki().ca_cert + "\n",
      "    token: good-token\n");
  const ClusterConnection connection = load_connection({path, ""});
  EXPECT_EQ(connection.server, server.url());
  EXPECT_EQ(connection.namespace_name, "team-a");
  EXPECT_EQ(connection.context, "test");
  list_jobs(connection);
  EXPECT_NE(server.requests_json().find("\"user\": \"alice\""), std::string::npos);
}

TEST_F(KubernetesKubeconfigTest, TokenFileRelativeToTheKubeconfigIsReadAtEachConnection) {
  FakeApiServer server;
  write_file(dir_.path() + "/token", "good-token\n");
  const std::string ca_data = testing::base64(testing::read_file(test_pki().ca_cert));
  const std::string path = write_kubeconfig(dir_.path(), server.url(),
                                            "    certificate-authority-data: " + ca_data + "\n",
                                            "    tokenFile: token\n");
  const ClusterConnection connection = load_connection({path, ""});
  EXPECT_EQ(connection.token_file, dir_.path() + "/token");
  list_jobs(connection);
  write_file(dir_.path() + "/token", "bob-token");  // a rotated token: bob may not list jobs
  std::string message;
  EXPECT_EQ(code_of([&] { list_jobs(connection); }, &message), Code::kPermissionDenied);
  EXPECT_NE(message.find("User \"bob\" cannot list resource \"jobs\""), std::string::npos)
      << message;
}

TEST_F(KubernetesKubeconfigTest, ClientCertificateFiles) {
  FakeApiServer server;
  const std::string path = write_kubeconfig(
      dir_.path(), server.url(), "    certificate-authority: " + test_pki().ca_cert + "\n",
      "    client-certificate: " + test_pki().client_cert +
          "\n    client-key: " + test_pki().client_key + "\n");
  list_jobs(load_connection({path, ""}));
  EXPECT_NE(server.requests_json().find("\"user\": \"alice\""), std::string::npos);
}

TEST_F(KubernetesKubeconfigTest, ClientCertificateData) {
  FakeApiServer server;
  using testing::base64;
  using testing::read_file;
  const std::string path = write_kubeconfig(
      dir_.path(), server.url(),
      "    certificate-authority-data: " + base64(read_file(test_pki().ca_cert)) + "\n",
      "    client-certificate-data: " + base64(read_file(test_pki().client_cert)) +
          "\n    client-key-data: " + base64(read_file(test_pki().client_key)) + "\n");
  const ClusterConnection connection = load_connection({path, ""});
  EXPECT_TRUE(connection.client_cert_file.empty());
  EXPECT_NE(connection.client_cert_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  list_jobs(connection);
}

TEST_F(KubernetesKubeconfigTest, UntrustedServerCertificateIsUnavailable) {
  FakeApiServer server;
  const std::string path = write_kubeconfig(
      dir_.path(), server.url(), "    certificate-authority: " + test_pki().other_ca_cert + "\n",
      "    token: good-token\n");
  std::string message;
  EXPECT_EQ(code_of([&] { list_jobs(load_connection({path, ""})); }, &message), Code::kUnavailable);
  EXPECT_NE(message.find("kubernetes: list jobs"), std::string::npos) << message;
  EXPECT_EQ(message.find("good-token"), std::string::npos) << "secrets never appear: " << message;
}

TEST_F(KubernetesKubeconfigTest, InsecureSkipTlsVerify) {
  FakeApiServer server;
  const std::string path = write_kubeconfig(
      dir_.path(), server.url(), "    insecure-skip-tls-verify: true\n", "    token: good-token\n");
  const ClusterConnection connection = load_connection({path, ""});
  EXPECT_TRUE(connection.insecure_skip_tls_verify);
  list_jobs(connection);
}

TEST_F(KubernetesKubeconfigTest, UnknownTokenIsUnauthenticated) {
  FakeApiServer server;
  const std::string path = write_kubeconfig(
      dir_.path(), server.url(), "    certificate-authority: " + test_pki().ca_cert + "\n",
      "    token: expired\n");
  std::string message;
  EXPECT_EQ(code_of(
                [&] {
                  list_jobs(load_connection({path, ""}));
                },
                &message),
            Code::kUnauthenticated);
  EXPECT_NE(message.find("HTTP 401 Unauthorized"), std::string::npos) << message;
  EXPECT_NE(message.find("context test"), std::string::npos) << message;
}

TEST_F(KubernetesKubeconfigTest, ContextWithoutNamespaceMeansDefault) {
  const std::string path =
      write_kubeconfig(dir_.path(), "https://127.0.0.1:1", "", "    token: t\n", "");
  EXPECT_EQ(load_connection({path, ""}).namespace_name, "default");
}

TEST_F(KubernetesKubeconfigTest, FilesMergeAndAContextCanBeChosen) {
  const std::string first =
      write_kubeconfig(dir_.path(), "https://127.0.0.1:1", "", "    token: first\n");
  TempDir other;
  write_file(other.path() + "/config",
             "apiVersion: v1\nkind: Config\ncurrent-context: ignored\nclusters:\n- name: prod\n"
             "  cluster:\n    server: https://10.0.0.1:6443/\ncontexts:\n- name: prod\n"
             "  context:\n    cluster: prod\n    user: tester\n    namespace: ml\nusers: []\n");
  const ClusterConnection chosen =
      load_connection({first + ":" + other.path() + "/config", "prod"});
  EXPECT_EQ(chosen.server, "https://10.0.0.1:6443");
  EXPECT_EQ(chosen.namespace_name, "ml");
  EXPECT_EQ(chosen.token, "first");  // user "tester" comes from the first file
  EXPECT_EQ(load_connection({first + ":" + other.path() + "/config", ""}).context, "test");
}

TEST_F(KubernetesKubeconfigTest, UnknownContextListsTheKnownOnes) {
  const std::string path =
      write_kubeconfig(dir_.path(), "https://127.0.0.1:1", "", "    token: t\n");
  std::string message;
  EXPECT_EQ(code_of([&] { load_connection({path, "staging"}); }, &message), Code::kInvalidArgument);
  EXPECT_NE(message.find("has no context 'staging' (contexts: test)"), std::string::npos)
      << message;
}

TEST_F(KubernetesKubeconfigTest, ExecCredentialPluginsAreRefusedByName) {
  const std::string path = write_kubeconfig(
      dir_.path(), "https://127.0.0.1:1", "",
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n");
  std::string message;
  EXPECT_EQ(code_of([&] { load_connection({path, ""}); }, &message), Code::kUnimplemented);
  EXPECT_NE(message.find("user 'tester' authenticates with 'exec'"), std::string::npos) << message;
}

TEST_F(KubernetesKubeconfigTest, MalformedYamlNamesFileAndLine) {
  write_file(dir_.path() + "/bad", "clusters:\n- name: x\n  cluster: [unclosed\n");
  std::string message;
  EXPECT_EQ(code_of(
                [&] {
                  load_connection({dir_.path() + "/bad", ""});
                },
                &message),
            Code::kInvalidArgument);
  EXPECT_NE(message.find(dir_.path() + "/bad:"), std::string::npos) << message;
}

TEST_F(KubernetesKubeconfigTest, InClusterServiceAccount) {
  FakeApiServer server;
  const std::string sa = dir_.path() + "/serviceaccount";
  std::filesystem::create_directories(sa);
  write_file(sa + "/token", "good-token");
  write_file(sa + "/ca.crt", testing::read_file(test_pki().ca_cert));
  write_file(sa + "/namespace", "jobs-ns\n");
  ::setenv("KUBECONFIG", (dir_.path() + "/absent").c_str(), 1);
  ::setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", std::to_string(server.port()).c_str(), 1);
  ::setenv("SORTIE_K8S_SERVICE_ACCOUNT_DIR", sa.c_str(), 1);
  const ClusterConnection connection = load_connection({});
  ::unsetenv("KUBECONFIG");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_EQ(connection.server, server.url());
  EXPECT_EQ(connection.namespace_name, "jobs-ns");
  list_jobs(connection);
}

}  // namespace
}  // namespace sortie::kubernetes
