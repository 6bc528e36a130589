// Base64url encoding (RFC 4648 section 5): X-Registry-Auth values here, JWTs in the vertex
// plugin.
#ifndef SORTIE_IMAGE_PUSH_BASE64URL_HPP
#define SORTIE_IMAGE_PUSH_BASE64URL_HPP

#include <string>
#include <string_view>

namespace sortie::image_push {

// Base64url without padding (RFC 7515 section 2).
std::string base64url(std::string_view bytes);

}  // namespace sortie::image_push

#endif  // SORTIE_IMAGE_PUSH_BASE64URL_HPP
