#include "edgeadmm/rounds/upload_digest.h"

#include <openssl/evp.h>

namespace edgeadmm::rounds {
namespace {

// Fetched once: an implicit fetch by name on every digest costs more than
// hashing a 492-byte payload (OpenSSL 3).
const EVP_MD* Sha256() {
  static const EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

}  // namespace

std::vector<uint8_t> UploadDigest(const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> digest(32);
  unsigned int size = 0;
  if (Sha256() == nullptr ||
      EVP_Digest(payload.data(), payload.size(), digest.data(), &size, Sha256(),
                 nullptr) != 1 ||
      size != digest.size()) {
    digest.clear();
  }
  return digest;
}

}  // namespace edgeadmm::rounds
