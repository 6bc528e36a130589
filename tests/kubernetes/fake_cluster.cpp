#include "fake_cluster.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sortie/http_client.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace sortie::kubernetes::testing {
namespace {

bool run(const std::string& command) { return std::system(command.c_str()) == 0; }

// An EC key and a certificate signed by the test CA (or self-signed when ca is empty).
bool make_certificate(const std::string& dir, const std::string& name, const std::string& subject,
                      const std::string& extensions, const std::string& ca) {
  const std::string key = dir + "/" + name + ".key", cert = dir + "/" + name + ".crt";
  const std::string quiet = " >/dev/null 2>&1";
  if (!run("openssl ecparam -name prime256v1 -genkey -noout -out " + key + quiet)) return false;
  write_file(dir + "/" + name + ".ext", extensions + "\n");
  if (ca.empty()) {
    return run("openssl req -x509 -new -key " + key + " -out " + cert + " -days 2 -subj " +
               subject +
               " -addext basicConstraints=critical,CA:TRUE -addext "
               "keyUsage=critical,keyCertSign,cRLSign" +
               quiet);
  }
  return run("openssl req -new -key " + key + " -out " + dir + "/" + name + ".csr -subj " +
             subject + quiet) &&
         run("openssl x509 -req -in " + dir + "/" + name + ".csr -CA " + dir + "/" + ca +
             ".crt -CAkey " + dir + "/" + ca + ".key -CAcreateserial -out " + cert +
             " -days 2 -extfile " + dir + "/" + name + ".ext" + quiet);
}

TestPki generate_pki() {
  TestPki pki;
  const std::string dir =
      std::string(SORTIE_TEST_BINARY_DIR) + "/pki-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const bool ok =
      make_certificate(dir, "ca", "/CN=sortie-test-ca", "", "") &&
      make_certificate(dir, "other-ca", "/CN=another-ca", "", "") &&
      make_certificate(dir, "server", "/CN=127.0.0.1",
                       "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth", "ca") &&
      make_certificate(dir, "client", "/CN=alice", "extendedKeyUsage=clientAuth", "ca");
  if (!ok) return pki;
  pki.dir = dir;
  pki.ca_cert = dir + "/ca.crt";
  pki.ca_key = dir + "/ca.key";
  pki.server_cert = dir + "/server.crt";
  pki.server_key = dir + "/server.key";
  pki.client_cert = dir + "/client.crt";
  pki.client_key = dir + "/client.key";
  pki.other_ca_cert = dir + "/other-ca.crt";
  return pki;
}

}  // namespace

const TestPki& test_pki() {
  static const TestPki pki = generate_pki();
  // Destroyed before pki (constructed after it): the private keys do not outlive the process.
  static const struct Remover {
    std::string dir;
    ~Remover() {
      std::error_code ignored;
      if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    }
  } remover{pki.dir};
  return pki;
}

TempDir::TempDir() : ::sortie::testing::TempDir("tmp", SORTIE_TEST_BINARY_DIR) {}

FakeApiServer::FakeApiServer(FakeServerOptions options) : options_(std::move(options)) {
  const std::string port_file = dir_.path() + "/port";
  std::vector<std::string> args = {SORTIE_PYTHON3, SORTIE_TEST_SOURCE_DIR "/fake_apiserver.py",
                                   "--port-file", port_file};
  if (options_.tls) {
    const TestPki& pki = test_pki();
    if (pki.dir.empty()) throw std::runtime_error("openssl could not make test certificates");
    args.insert(args.end(), {"--cert", pki.server_cert, "--key", pki.server_key});
    if (options_.client_ca) args.insert(args.end(), {"--client-ca", pki.ca_cert});
  }
  for (const std::string& token : options_.tokens) args.insert(args.end(), {"--token", token});
  for (const std::string& user : options_.forbidden) args.insert(args.end(), {"--forbid", user});
  for (const std::string& crd : options_.without) args.insert(args.end(), {"--without", crd});
  pid_ = ::fork();
  if (pid_ == 0) {
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(port_file);
    if (in >> port_) return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("fake API server exited at start (is python3 installed?)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("fake API server did not start within 20 s");
}

FakeApiServer::~FakeApiServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::string FakeApiServer::url() const {
  return std::string(options_.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

std::string FakeApiServer::control(const std::string& method, const std::string& path,
                                   const std::string& body) {
  http::Endpoint endpoint;
  endpoint.base_url = url();
  endpoint.insecure_skip_tls_verify = true;
  if (options_.tls) {
    endpoint.client_cert_file = test_pki().client_cert;
    endpoint.client_key_file = test_pki().client_key;
  }
  http::Client client(endpoint);
  http::Request request;
  request.method = method;
  request.path = path;
  request.body = body;
  const http::Response response = client.send(request);
  if (!response.ok()) throw std::runtime_error("fake control " + path + " failed");
  return response.body;
}

void FakeApiServer::advance() { control("POST", "/_fake/advance", "{}"); }

void FakeApiServer::fail_next(int status, int count, const std::string& path_part) {
  control("POST", "/_fake/fail_next",
          "{\"status\": " + std::to_string(status) + ", \"count\": " + std::to_string(count) +
              ", \"path_contains\": \"" + path_part + "\"}");
}

std::string FakeApiServer::requests_json() { return control("GET", "/_fake/requests", ""); }

std::string write_kubeconfig(const std::string& dir, const std::string& server,
                             const std::string& cluster_extra, const std::string& user_yaml,
                             const std::string& namespace_name) {
  const std::string path = dir + "/kubeconfig";
  std::string text =
      "apiVersion: v1\nkind: Config\ncurrent-context: test\nclusters:\n"
      "- name: fake\n  cluster:\n    server: " +
      server + "\n" + cluster_extra +
      "contexts:\n- name: test\n  context:\n    cluster: fake\n    user: tester\n";
  if (!namespace_name.empty()) text += "    namespace: " + namespace_name + "\n";
  text += "users:\n- name: tester\n  user:\n" + user_yaml;
  write_file(path, text);
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n =
        (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(n >> shift) & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t n = uint8_t(bytes[i]) << 16;
    out += std::string{kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const uint32_t n = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += std::string{kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63],
                       kAlphabet[(n >> 6) & 63], '='};
  }
  return out;
}

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace sortie::kubernetes::testing
