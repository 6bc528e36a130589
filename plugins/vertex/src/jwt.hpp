// RS256-signed JSON Web Tokens (RFC 7519) with OpenSSL, for the OAuth 2.0 service-account flow
// (RFC 7523): the signed assertion is exchanged for an access token at the key's token_uri.
#ifndef SORTIE_VERTEX_JWT_HPP
#define SORTIE_VERTEX_JWT_HPP

#include <string>
#include <string_view>

#include "base64url.hpp"

namespace sortie::vertex {

using image_push::base64url;

// "<header>.<claims>.<signature>" with header {"alg":"RS256","typ":"JWT"[,"kid":key_id]}.
// private_key_pem is a PKCS#8 or PKCS#1 RSA key. Throws INVALID_ARGUMENT naming `key_what` when
// the key cannot be read; the key never appears in a message.
std::string sign_jwt_rs256(std::string_view claims_json, std::string_view private_key_pem,
                           std::string_view key_id, std::string_view key_what);

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_JWT_HPP
