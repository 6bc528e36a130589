#include "jwt.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::vertex {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct DigestFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

std::string sign_jwt_rs256(std::string_view claims_json, std::string_view private_key_pem,
                           std::string_view key_id, std::string_view key_what) {
  rapidjson::Document header(rapidjson::kObjectType);
  plugins_common::add_string(header, "alg", "RS256", header.GetAllocator());
  plugins_common::add_string(header, "typ", "JWT", header.GetAllocator());
  if (!key_id.empty()) plugins_common::add_string(header, "kid", key_id, header.GetAllocator());
  const std::string signing_input =
      base64url(plugins_common::to_json_text(header)) + "." + base64url(claims_json);

  std::unique_ptr<BIO, BioFree> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())));
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key || EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    throw Error::invalid_argument(
        std::string(key_what) +
        ": 'private_key' is not a PEM RSA private key; download a new JSON key "
        "for the service account");
  }
  std::unique_ptr<EVP_MD_CTX, DigestFree> ctx(EVP_MD_CTX_new());
  size_t length = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    throw Error::internal(std::string(key_what) + ": OpenSSL could not sign the JWT");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    throw Error::internal(std::string(key_what) + ": OpenSSL could not sign the JWT");
  }
  signature.resize(length);
  return signing_input + "." + base64url(signature);
}

}  // namespace sortie::vertex
