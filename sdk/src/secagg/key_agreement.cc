// X25519 and HKDF-SHA256 pairwise keys from Mbed TLS (see key_agreement.h).
#include "edgeadmm/secagg/key_agreement.h"

#include <cstring>

#include "mbedtls/platform_util.h"  // also pulls in the Mbed TLS configuration

#if defined(MBEDTLS_ECP_C) && defined(MBEDTLS_BIGNUM_C) && \
    defined(MBEDTLS_ECP_DP_CURVE25519_ENABLED) && defined(MBEDTLS_HKDF_C)
#define EDGEADMM_SECAGG_HAS_X25519 1
#include "mbedtls/bignum.h"
#include "mbedtls/ecp.h"
#include "mbedtls/hkdf.h"
#include "mbedtls/md.h"
#else
#define EDGEADMM_SECAGG_HAS_X25519 0
#endif

namespace edgeadmm {

#if EDGEADMM_SECAGG_HAS_X25519
namespace {

constexpr char kInfoLabel[] = "EdgeADMM SecAgg+ v1";  // without its NUL

// Mbed TLS's f_rng over a RandomByteSource.
int RandomCallback(void* source, unsigned char* out, size_t length) {
  RandomByteSource* random = static_cast<RandomByteSource*>(source);
  return random->Generate(ByteSpan(reinterpret_cast<std::byte*>(out), length))
                 .ok()
             ? 0
             : -1;
}

void Clamp(unsigned char* scalar) {
  scalar[0] &= 248;
  scalar[31] &= 127;
  scalar[31] |= 64;
}

bool AllZero(const unsigned char* bytes, size_t size) {
  unsigned char any = 0;
  for (size_t i = 0; i < size; ++i) {
    any |= bytes[i];
  }
  return any == 0;
}

// Mbed TLS's error as a Status: a low-order u makes the ladder end at the
// point at infinity (Z = 0, not invertible: MPI_NOT_ACCEPTABLE).
Status ErrorStatus(int rc) {
  switch (rc) {
    case MBEDTLS_ERR_MPI_NOT_ACCEPTABLE:
    case MBEDTLS_ERR_ECP_INVALID_KEY:
    case MBEDTLS_ERR_ECP_BAD_INPUT_DATA:
      return Status::InvalidArgument();
    case MBEDTLS_ERR_MPI_ALLOC_FAILED:
    case MBEDTLS_ERR_ECP_ALLOC_FAILED:
      return Status::ResourceExhausted();
    default:
      return Status::Internal();  // e.g. the random source failed
  }
}

// out = X25519(clamped scalar, u), u's top bit masked; sizes already checked.
Status Multiply(const unsigned char* scalar_in, const unsigned char* u_in,
                RandomByteSource& random, unsigned char* out) {
  unsigned char scalar[kX25519KeyBytes];
  unsigned char u[kX25519KeyBytes];
  std::memcpy(scalar, scalar_in, sizeof(scalar));
  std::memcpy(u, u_in, sizeof(u));
  Clamp(scalar);
  u[31] &= 127;
  mbedtls_ecp_group group;
  mbedtls_ecp_point point;
  mbedtls_ecp_point result;
  mbedtls_mpi d;
  mbedtls_ecp_group_init(&group);
  mbedtls_ecp_point_init(&point);
  mbedtls_ecp_point_init(&result);
  mbedtls_mpi_init(&d);
  int rc = mbedtls_ecp_group_load(&group, MBEDTLS_ECP_DP_CURVE25519);
  if (rc == 0) rc = mbedtls_mpi_read_binary_le(&d, scalar, sizeof(scalar));
  if (rc == 0) rc = mbedtls_mpi_read_binary_le(&point.X, u, sizeof(u));
  if (rc == 0) rc = mbedtls_mpi_lset(&point.Z, 1);
  if (rc == 0) {
    rc = mbedtls_ecp_mul(&group, &result, &d, &point, RandomCallback, &random);
  }
  if (rc == 0)
    rc = mbedtls_mpi_write_binary_le(&result.X, out, kX25519KeyBytes);
  mbedtls_mpi_free(&d);
  mbedtls_ecp_point_free(&result);
  mbedtls_ecp_point_free(&point);
  mbedtls_ecp_group_free(&group);
  mbedtls_platform_zeroize(scalar, sizeof(scalar));
  if (rc != 0) {
    mbedtls_platform_zeroize(out, kX25519KeyBytes);
    return ErrorStatus(rc);
  }
  // A low-order u gives an all-zero secret (RFC 7748 §6.1). Mbed TLS 2.28
  // already fails those in the ladder (the point at infinity, above: the
  // tests' u = 0 and u = 1 stop there); kept for a version that returns
  // the zeros instead.
  if (AllZero(out, kX25519KeyBytes)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

const unsigned char* Bytes(ConstByteSpan span) {
  return reinterpret_cast<const unsigned char*>(span.data());
}

}  // namespace

bool KeyAgreementAvailable() { return true; }

Status X25519(ConstByteSpan scalar, ConstByteSpan u, RandomByteSource& random,
              ByteSpan out) {
  if (scalar.size() != kX25519KeyBytes || u.size() != kX25519KeyBytes ||
      out.size() != kX25519KeyBytes) {
    return Status::InvalidArgument();
  }
  return Multiply(Bytes(scalar), Bytes(u), random,
                  reinterpret_cast<unsigned char*>(out.data()));
}

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
  unsigned char* scalar = reinterpret_cast<unsigned char*>(private_key.data());
  Clamp(scalar);
  unsigned char base[kX25519KeyBytes] = {9};
  return Multiply(scalar, base, random,
                  reinterpret_cast<unsigned char*>(public_key.data()));
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
  // info = label || purpose || min(public keys) || max(public keys).
  constexpr size_t kLabelBytes = sizeof(kInfoLabel) - 1;
  unsigned char info[kLabelBytes + 1 + 2 * kX25519KeyBytes];
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
  const int rc =
      mbedtls_hkdf(mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), nullptr, 0,
                   shared, sizeof(shared), info, sizeof(info),
                   reinterpret_cast<unsigned char*>(key.data()), key.size());
  mbedtls_platform_zeroize(shared, sizeof(shared));
  if (rc != 0) {
    mbedtls_platform_zeroize(key.data(), key.size());
    return Status::Internal();
  }
  return Status::Ok();
}

#else  // no X25519 or HKDF in this build's Mbed TLS

bool KeyAgreementAvailable() { return false; }

Status X25519(ConstByteSpan, ConstByteSpan, RandomByteSource&, ByteSpan) {
  return Status::Unimplemented();
}

Status X25519KeyPair(RandomByteSource&, ByteSpan, ByteSpan) {
  return Status::Unimplemented();
}

Status DerivePairwiseKey(ConstByteSpan, ConstByteSpan, ConstByteSpan,
                         PairwiseKeyPurpose, RandomByteSource&, ByteSpan) {
  return Status::Unimplemented();
}

#endif

}  // namespace edgeadmm
