// Tests of sortie/http_client.hpp against a one-connection-at-a-time HTTP server on loopback
// (TCP and a unix socket) that records what it received and answers with a scripted response.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sortie/http_client.hpp>
#include <sortie/plugin.hpp>
#include <string>
#include <thread>

namespace {

// Serves connections on a listening socket until destroyed. Each request is read up to the end
// of its body (Content-Length) and answered with `reply`, after an optional delay.
class ScriptedServer {
 public:
  explicit ScriptedServer(int listen_fd) : listen_fd_(listen_fd) {
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    const int conn = conn_fd_.load();
    if (conn >= 0) ::shutdown(conn, SHUT_RDWR);  // a client may still hold its connection
    ::close(listen_fd_);
    thread_.join();
  }
  static std::unique_ptr<ScriptedServer> tcp(int* port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd, 8), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    *port = ntohs(addr.sin_port);
    return std::make_unique<ScriptedServer>(fd);
  }
  static std::unique_ptr<ScriptedServer> unix_socket(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd, 8), 0);
    return std::make_unique<ScriptedServer>(fd);
  }

  std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Test: yes\r\n\r\nok";
  std::chrono::milliseconds delay{0};
  std::atomic<int> requests{0};
  std::string last_request() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_request_;
  }

 private:
  void serve() {
    while (!stop_) {
      const int conn = ::accept(listen_fd_, nullptr, nullptr);
      if (conn < 0) return;
      conn_fd_ = conn;
      std::string data;
      char buffer[4096];
      while (true) {
        const size_t header_end = data.find("\r\n\r\n");
        if (header_end != std::string::npos) {
          size_t body_length = 0;
          const size_t at = data.find("Content-Length: ");
          if (at != std::string::npos && at < header_end)
            body_length = std::stoul(data.substr(at + 16));
          if (data.size() >= header_end + 4 + body_length) {
            {
              std::lock_guard<std::mutex> lock(mutex_);
              last_request_ = data;
            }
            ++requests;
            std::this_thread::sleep_for(delay);
            (void)!::send(conn, reply.data(), reply.size(), MSG_NOSIGNAL);
            data.erase(0, header_end + 4 + body_length);
            continue;
          }
        }
        const ssize_t n = ::read(conn, buffer, sizeof buffer);
        if (n <= 0) break;
        data.append(buffer, static_cast<size_t>(n));
      }
      conn_fd_ = -1;
      ::close(conn);
    }
  }

  int listen_fd_;
  std::atomic<int> conn_fd_{-1};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::string last_request_;
  std::thread thread_;
};

using sortie::http::Client;
using sortie::http::Endpoint;
using sortie::http::Request;

Endpoint loopback(int port) {
  Endpoint endpoint;
  endpoint.base_url = "http://127.0.0.1:" + std::to_string(port);
  return endpoint;
}

Request get(std::string path) {
  Request request;
  request.path = std::move(path);
  return request;
}

TEST(HttpClient, SendsMethodPathHeadersBodyAndBearerAndReadsTheReply) {
  int port = 0;
  auto server = ScriptedServer::tcp(&port);
  Endpoint endpoint = loopback(port);
  endpoint.bearer_token = "s3cret";
  Client client(endpoint);
  Request request;
  request.method = "POST";
  request.path = "/v1/things?x=1";
  request.headers = {{"X-Registry-Auth", "e30="}};
  request.body = R"({"a":1})";
  const auto response = client.send(request);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "ok");
  EXPECT_EQ(response.header("x-test"), "yes");
  EXPECT_TRUE(response.ok());
  const std::string seen = server->last_request();
  EXPECT_EQ(seen.rfind("POST /v1/things?x=1 HTTP/1.1\r\n", 0), 0u) << seen;
  EXPECT_NE(seen.find("Authorization: Bearer s3cret\r\n"), std::string::npos);
  EXPECT_NE(seen.find("X-Registry-Auth: e30=\r\n"), std::string::npos);
  EXPECT_NE(seen.find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_EQ(seen.substr(seen.size() - 7), R"({"a":1})");
}

TEST(HttpClient, HttpErrorStatusIsAnAnswerNotAnException) {
  int port = 0;
  auto server = ScriptedServer::tcp(&port);
  server->reply = "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nno such x";
  Client client(loopback(port));
  const auto response = client.send(get("/x"));
  EXPECT_EQ(response.status, 404);
  EXPECT_FALSE(response.ok());
  EXPECT_EQ(response.body, "no such x");
}

TEST(HttpClient, ReusesItsConnectionAcrossCalls) {
  int port = 0;
  auto server = ScriptedServer::tcp(&port);
  Client client(loopback(port));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(client.send(get("/")).body, "ok");
  EXPECT_EQ(server->requests.load(), 3);
}

TEST(HttpClient, TalksOverAUnixSocket) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("sortie-http-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "engine.sock").string();
  auto server = ScriptedServer::unix_socket(path);
  Endpoint endpoint;
  endpoint.base_url = "http://localhost";
  endpoint.unix_socket = path;
  Client client(endpoint);
  EXPECT_EQ(client.send(get("/version")).body, "ok");
  EXPECT_EQ(server->last_request().rfind("GET /version HTTP/1.1", 0), 0u);
  server.reset();
  std::filesystem::remove_all(dir);
}

TEST(HttpClient, StreamDeliversChunksAndMayStopEarly) {
  int port = 0;
  auto server = ScriptedServer::tcp(&port);
  server->reply =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nfirst\r\n6\r\nsecond\r\n0\r\n\r\n";
  Client client(loopback(port));
  std::string all;
  auto response = client.stream(get("/logs"), [&](std::string_view chunk) {
    all.append(chunk);
    return true;
  });
  EXPECT_EQ(all, "firstsecond");
  EXPECT_TRUE(response.body.empty());

  int calls = 0;
  response = client.stream(get("/logs"), [&](std::string_view) {
    ++calls;
    return false;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(response.status, 200);
}

TEST(HttpClient, StreamKeepsAnErrorBodyOutOfTheChunkHandler) {
  int port = 0;
  auto server = ScriptedServer::tcp(&port);
  server->reply = "HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\n\r\npod not found";
  Client client(loopback(port));
  int calls = 0;
  const auto response = client.stream(get("/logs"), [&](std::string_view) {
    ++calls;
    return true;
  });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.body, "pod not found");
}

TEST(HttpClient, AbortFlagEndsAStreamThatReceivesNothing) {
  int port = 0;
  auto server = ScriptedServer::tcp(&port);
  // Headers and one chunk, then silence: a follow that has nothing more to say.
  server->reply = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n";
  Client client(loopback(port));
  std::atomic<bool> abort{false};
  Request request = get("/follow");
  request.abort = &abort;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    abort = true;
  });
  std::string seen;
  const auto response = client.stream(request, [&](std::string_view chunk) {
    seen.append(chunk);
    return true;
  });
  stopper.join();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(seen, "first");
}

TEST(HttpClient, ConnectionRefusedIsUnavailableAndNamesTheEndpoint) {
  int port = 0;
  { auto server = ScriptedServer::tcp(&port); }  // bound then closed: nothing listens now
  Endpoint endpoint = loopback(port);
  endpoint.description = "Test API at 127.0.0.1";
  endpoint.bearer_token = "never-shown";
  Client client(endpoint);
  try {
    client.send(get("/ping"));
    FAIL() << "expected an error";
  } catch (const sortie::Error& e) {
    EXPECT_EQ(e.code(), sortie::Code::kUnavailable);
    const std::string message = e.what();
    EXPECT_NE(message.find("GET /ping on Test API at 127.0.0.1 failed"), std::string::npos)
        << message;
    EXPECT_NE(message.find("listening"), std::string::npos) << message;
    EXPECT_EQ(message.find("never-shown"), std::string::npos) << message;
  }
}

TEST(HttpClient, SlowServerHitsTheRequestTimeout) {
  int port = 0;
  auto server = ScriptedServer::tcp(&port);
  server->delay = std::chrono::milliseconds(500);
  Client client(loopback(port));
  Request request = get("/slow");
  request.timeout_ms = 50;
  try {
    client.send(request);
    FAIL() << "expected a timeout";
  } catch (const sortie::Error& e) {
    EXPECT_EQ(e.code(), sortie::Code::kDeadlineExceeded) << e.what();
  }
}

TEST(HttpClient, UrlEncodeKeepsUnreservedAndEscapesTheRest) {
  EXPECT_EQ(sortie::http::url_encode("a-Z_0.~"), "a-Z_0.~");
  EXPECT_EQ(sortie::http::url_encode(R"({"label":["k=v"]})"),
            "%7B%22label%22%3A%5B%22k%3Dv%22%5D%7D");
  EXPECT_EQ(sortie::http::url_encode("a b/c"), "a%20b%2Fc");
}

TEST(HttpClient, CredentialsTravelOverHttpsOrToThisMachineOnly) {
  using sortie::http::may_carry_credentials;
  EXPECT_TRUE(may_carry_credentials("https://us-central1-aiplatform.googleapis.com/v1"));
  EXPECT_TRUE(may_carry_credentials("HTTPS://example.com"));
  EXPECT_TRUE(may_carry_credentials("http://127.0.0.1:8080/v1"));
  EXPECT_TRUE(may_carry_credentials("http://127.4.5.6"));
  EXPECT_TRUE(may_carry_credentials("http://localhost:9/x"));
  EXPECT_TRUE(may_carry_credentials("http://[::1]:6443/api"));
  EXPECT_FALSE(may_carry_credentials("http://203.0.113.7/v1"));
  EXPECT_FALSE(may_carry_credentials("http://localhost.evil.test/"));
  EXPECT_FALSE(may_carry_credentials("http://127.0.0.1.evil.test/"));
  EXPECT_FALSE(may_carry_credentials("http://127.0.0.1@evil.test/"));
  EXPECT_FALSE(may_carry_credentials("ftp://127.0.0.1/"));
}

TEST(HttpClient, ABearerTokenIsNeverSentOverPlainHttpToAnotherMachine) {
  Endpoint endpoint;
  endpoint.base_url = "http://203.0.113.7:9";
  endpoint.description = "Test API at 203.0.113.7";
  endpoint.bearer_token = "never-sent";
  Client client(endpoint);
  try {
    client.send(get("/ping"));
    FAIL() << "expected an error";
  } catch (const sortie::Error& e) {
    EXPECT_EQ(e.code(), sortie::Code::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("refusing to send credentials over plain http"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
