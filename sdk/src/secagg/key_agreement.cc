// X25519 key pairs (x25519.cc) and HKDF-SHA256 pairwise keys from Mbed
// TLS's HMAC-SHA256 (see key_agreement.h).
#include "edgeadmm/secagg/key_agreement.h"

#include <cstring>

#include "mbedtls/md.h"
#include "mbedtls/platform_util.h"  // also pulls in the Mbed TLS configuration
#include "x25519_scalar.h"

#if !defined(MBEDTLS_MD_C) || !defined(MBEDTLS_SHA256_C)
#error "the SDK needs Mbed TLS's MD layer and SHA-256"
#endif

namespace edgeadmm {
namespace {

constexpr char kInfoLabel[] = "EdgeADMM SecAgg+ v1";  // without its NUL

const unsigned char* Bytes(ConstByteSpan span) {
  return reinterpret_cast<const unsigned char*>(span.data());
}

}  // namespace

Status X25519KeyPair(RandomByteSource& random, ByteSpan private_key,
                     ByteSpan public_key) {
  if (private_key.size() != kX25519KeyBytes ||
      public_key.size() != kX25519KeyBytes) {
    return Status::InvalidArgument();
  }
  const Status drawn = random.Generate(private_key);
  if (!drawn.ok()) {
    mbedtls_platform_zeroize(private_key.data(), private_key.size());
    return Status::Internal();
  }
  // Stored clamped (x25519_scalar.h).
  secagg_internal::ClampX25519Scalar(
      reinterpret_cast<unsigned char*>(private_key.data()));
  const std::byte base[kX25519KeyBytes] = {std::byte{9}};
  return X25519(private_key, ConstByteSpan(base, sizeof(base)), random,
                public_key);
}

Status DerivePairwiseKey(ConstByteSpan own_private, ConstByteSpan own_public,
                         ConstByteSpan peer_public, PairwiseKeyPurpose purpose,
                         RandomByteSource& random, ByteSpan key) {
  if (key.size() == kPairwiseKeyBytes) {
    mbedtls_platform_zeroize(key.data(), key.size());
  }
  if (own_public.size() != kX25519KeyBytes || key.size() != kPairwiseKeyBytes ||
      (purpose != PairwiseKeyPurpose::kMaskSeed &&
       purpose != PairwiseKeyPurpose::kShareEncryption)) {
    return Status::InvalidArgument();
  }
  unsigned char shared[kX25519KeyBytes];
  Status status =
      X25519(own_private, peer_public, random,
             ByteSpan(reinterpret_cast<std::byte*>(shared), sizeof(shared)));
  if (!status.ok()) {
    mbedtls_platform_zeroize(shared, sizeof(shared));
    return status;
  }
  // info = label || purpose || min(public keys) || max(public keys), then
  // HKDF's block counter.
  constexpr size_t kLabelBytes = sizeof(kInfoLabel) - 1;
  constexpr size_t kInfoBytes = kLabelBytes + 1 + 2 * kX25519KeyBytes;
  unsigned char info[kInfoBytes + 1];
  std::memcpy(info, kInfoLabel, kLabelBytes);
  info[kLabelBytes] = static_cast<unsigned char>(purpose);
  const bool own_first =
      std::memcmp(Bytes(own_public), Bytes(peer_public), kX25519KeyBytes) <= 0;
  const unsigned char* first =
      own_first ? Bytes(own_public) : Bytes(peer_public);
  const unsigned char* second =
      own_first ? Bytes(peer_public) : Bytes(own_public);
  std::memcpy(info + kLabelBytes + 1, first, kX25519KeyBytes);
  std::memcpy(info + kLabelBytes + 1 + kX25519KeyBytes, second,
              kX25519KeyBytes);
  info[kInfoBytes] = 1;
  // HKDF-SHA256 (RFC 5869 §2.2-2.3) without salt, for one hash-length block
  // of output: PRK = HMAC(0^32, shared), key = T(1) = HMAC(PRK, info || 1).
  const mbedtls_md_info_t* sha256 =
      mbedtls_md_info_from_type(MBEDTLS_MD_SHA256);
  const unsigned char no_salt[32] = {};
  unsigned char prk[32];
  static_assert(kPairwiseKeyBytes == sizeof(prk), "one HKDF block");
  int rc = mbedtls_md_hmac(sha256, no_salt, sizeof(no_salt), shared,
                           sizeof(shared), prk);
  if (rc == 0) {
    rc = mbedtls_md_hmac(sha256, prk, sizeof(prk), info, sizeof(info),
                         reinterpret_cast<unsigned char*>(key.data()));
  }
  mbedtls_platform_zeroize(prk, sizeof(prk));
  mbedtls_platform_zeroize(shared, sizeof(shared));
  if (rc != 0) {
    mbedtls_platform_zeroize(key.data(), key.size());
    return Status::Internal();
  }
  return Status::Ok();
}

}  // namespace edgeadmm
