// X25519 (RFC 7748 §5) in constant time (see key_agreement.h): the
// Montgomery ladder of x25519_ladder.h over the field representation this
// CPU multiplies fastest: radix 2^51 where the compiler has a 128-bit
// integer (x86_64, aarch64), radix 2^16 elsewhere (the Cortex-M4F, armhf).
#include <cstdint>
#include <cstring>

#include "edgeadmm/secagg/key_agreement.h"
#include "mbedtls/platform_util.h"
#include "x25519_field16.h"
#include "x25519_field51.h"
#include "x25519_ladder.h"
#include "x25519_scalar.h"

namespace edgeadmm {
namespace {

#if defined(__SIZEOF_INT128__)
using Field = secagg_internal::Field51;
#else
using Field = secagg_internal::Field16;
#endif

}  // namespace

Status X25519(ConstByteSpan scalar, ConstByteSpan u, RandomByteSource& random,
              ByteSpan out) {
  if (scalar.size() != kX25519KeyBytes || u.size() != kX25519KeyBytes ||
      out.size() != kX25519KeyBytes) {
    return Status::InvalidArgument();
  }
  unsigned char k[kX25519KeyBytes];
  std::memcpy(k, scalar.data(), sizeof(k));
  secagg_internal::ClampX25519Scalar(k);
  unsigned char* result = reinterpret_cast<unsigned char*>(out.data());
  const Status status = secagg_internal::X25519Ladder<Field>(
      k, reinterpret_cast<const unsigned char*>(u.data()), random, result);
  mbedtls_platform_zeroize(k, sizeof(k));
  if (!status.ok()) {
    mbedtls_platform_zeroize(result, kX25519KeyBytes);
    return status;
  }
  // A low-order u gives an all-zero secret (RFC 7748 §6.1).
  unsigned char any = 0;
  for (size_t i = 0; i < kX25519KeyBytes; ++i) any |= result[i];
  return any == 0 ? Status::InvalidArgument() : Status::Ok();
}

}  // namespace edgeadmm
