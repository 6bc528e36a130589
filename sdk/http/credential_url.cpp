// File: sdk/http/credential_url.cpp
//
// Which URLs may carry credentials: https anywhere, plain http to loopback only.
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <sortie/http_client.hpp>
#include <string>

namespace sortie::http {
namespace {

bool is_loopback_host(std::string host) {
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (host == "localhost" || host == "[::1]") return true;
  in_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1 && (ntohl(address.s_addr) >> 24) == 127;
}

}  // namespace

bool may_carry_credentials(std::string_view url) {
  constexpr std::string_view kHttps = "https://";
  constexpr std::string_view kHttp = "http://";
  auto starts_with_ignoring_case = [&](std::string_view prefix) {
    return url.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), url.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) ==
                    std::tolower(static_cast<unsigned char>(b));
           });
  };
  if (starts_with_ignoring_case(kHttps)) return true;
  if (!starts_with_ignoring_case(kHttp)) return false;
  std::string_view authority = url.substr(kHttp.size());
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  // "[::1]:8080" keeps its brackets; "127.0.0.1:8080" loses its port.
  const size_t port = authority.rfind(':');
  if (port != std::string_view::npos && authority.find(']') == std::string_view::npos) {
    authority = authority.substr(0, port);
  } else if (const size_t bracket = authority.find(']'); bracket != std::string_view::npos) {
    authority = authority.substr(0, bracket + 1);
  }
  return is_loopback_host(std::string(authority));
}

}  // namespace sortie::http
