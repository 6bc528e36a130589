#include "request_guard.hpp"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <sortie/model/error.hpp>

namespace sortie::ui {
namespace {

constexpr size_t kTokenBytes = 32;

std::string random_token() {
  std::array<unsigned char, kTokenBytes> bytes{};
  size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t got = getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      throw Error::internal(std::string("cannot draw the dashboard's token (getrandom): ") +
                            std::strerror(errno));
    }
    filled += static_cast<size_t>(got);
  }
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string token;
  for (const unsigned char byte : bytes) {
    token += kHex[byte >> 4];
    token += kHex[byte & 0xf];
  }
  return token;
}

// Compares in a time that does not tell how many leading characters of a guess were right.
bool same_token(const std::string& given, const std::string& token) {
  if (given.size() != token.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < token.size(); ++i) {
    difference |= static_cast<unsigned char>(given[i] ^ token[i]);
  }
  return difference == 0;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::string host_in_url(const std::string& address) {
  return address.find(':') != std::string::npos ? "[" + address + "]" : address;
}

RequestGuard::RequestGuard(const std::string& host, int port) : token_(random_token()) {
  const std::string bound = lowercase(host_in_url(host));
  for (const std::string& name :
       {std::string("localhost"), std::string("127.0.0.1"), std::string("[::1]"), bound}) {
    const std::string with_port = name + ":" + std::to_string(port);
    if (std::find(hosts_.begin(), hosts_.end(), with_port) != hosts_.end()) continue;
    hosts_.push_back(with_port);
    // A browser leaves http's default port out of the Host header.
    if (port == 80) hosts_.push_back(name);
  }
}

std::string RequestGuard::refusal(const std::string& host_header, bool write,
                                  const std::string& token_header) const {
  if (std::find(hosts_.begin(), hosts_.end(), lowercase(host_header)) == hosts_.end()) {
    std::string names;
    for (const std::string& host : hosts_) names += (names.empty() ? "" : ", ") + host;
    return "this dashboard answers only requests addressed to " + names +
           " (so a page elsewhere cannot read it); browse to the URL `sortie ui` printed";
  }
  if (write && !same_token(token_header, token_)) {
    return std::string("a write needs the header ") + kTokenHeader +
           " with the token of the URL `sortie ui` printed (#token=...): open that URL";
  }
  return "";
}

}  // namespace sortie::ui
