// The OAuth 2.0 bearer token sent to Vertex AI, from the first source that applies:
//   1. run option service_account_key_file: an RS256 JWT signed with the key, exchanged at the
//      key's token_uri (RFC 7523);
//   2. the environment variable GOOGLE_OAUTH_ACCESS_TOKEN;
//   3. run option access_token_command (default `gcloud auth print-access-token`).
// Tokens live in memory only and never appear in messages, logs or dry-run output.
#ifndef SORTIE_VERTEX_ACCESS_TOKEN_HPP
#define SORTIE_VERTEX_ACCESS_TOKEN_HPP

#include <chrono>
#include <string>

#include "connection.hpp"

namespace sortie::vertex {

inline constexpr const char* kTokenEnv = "GOOGLE_OAUTH_ACCESS_TOKEN";
inline constexpr const char* kCloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform";

class AccessTokenSource {
 public:
  explicit AccessTokenSource(Connection connection) : connection_(std::move(connection)) {}

  // A token, reused until a minute before it expires. Throws UNAUTHENTICATED naming the source
  // and what to fix.
  std::string token();
  // Forgets the cached token, so the next token() fetches a fresh one (after an HTTP 401).
  void invalidate() { cached_.clear(); }
  // Which source applies, for messages: "service-account key /k.json", "GOOGLE_OAUTH_ACCESS_TOKEN",
  // "access_token_command 'gcloud auth print-access-token'".
  std::string description() const;

 private:
  std::string from_service_account(std::chrono::seconds* lifetime);
  std::string from_command(std::chrono::seconds* lifetime);

  Connection connection_;
  std::string cached_;
  std::chrono::steady_clock::time_point expires_at_;
};

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_ACCESS_TOKEN_HPP
