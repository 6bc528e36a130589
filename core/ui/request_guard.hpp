// File: core/ui/request_guard.hpp
//
// Which requests the dashboard answers (docs/ui.md, "Who may read and write"). A request must be
// addressed to one of the server's own names with its port, so a web page that rebinds its own
// name to the dashboard's address (DNS rebinding) is refused; a write must also carry the token
// of the URL `sortie ui` printed, which no other page and no other server knows.
#ifndef SORTIE_UI_REQUEST_GUARD_HPP
#define SORTIE_UI_REQUEST_GUARD_HPP

#include <string>
#include <vector>

namespace sortie::ui {

// The header that carries the token on a write.
inline constexpr const char* kTokenHeader = "X-Sortie-Token";

// `address` as a URL and a Host header name it: an IPv6 address in brackets.
std::string host_in_url(const std::string& address);

class RequestGuard {
 public:
  // `host`: the address the server is bound to, as given to --host; `port`: the bound port.
  // The token is drawn from the kernel's CSPRNG (getrandom); failing that is Error::internal.
  RequestGuard(const std::string& host, int port);

  // The token, 64 hexadecimal digits, that the printed URL carries (#token=...).
  const std::string& token() const { return token_; }

  // Why a request with these Host and token headers is refused (answered 403); empty when it is
  // answered. `write`: the request would change state (any method but GET and HEAD).
  std::string refusal(const std::string& host_header, bool write,
                      const std::string& token_header) const;

 private:
  std::string token_;
  // The Host values answered: localhost, 127.0.0.1, [::1] and the bound address, with the port.
  std::vector<std::string> hosts_;
};

}  // namespace sortie::ui

#endif  // SORTIE_UI_REQUEST_GUARD_HPP
