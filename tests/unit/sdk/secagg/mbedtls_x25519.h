// X25519 by Mbed TLS's ECP module (mbedtls_ecp_mul on Curve25519, the
// host's Debian Mbed TLS): the independent implementation the SDK's own
// X25519 (sdk/src/secagg/x25519.cc) is compared with, in
// x25519_host_test.cc and tests/benchmarks/secure_aggregation/
// x25519_benchmark.cc. Host only.
#pragma once

#include <cstddef>
#include <cstring>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/span.h"
#include "mbedtls/bignum.h"
#include "mbedtls/ecp.h"

namespace edgeadmm {

// Whether this build's Mbed TLS has Curve25519 (armhf's, libcoap's
// configuration, has not: there MbedTlsX25519 always fails).
#if defined(MBEDTLS_ECP_C) && defined(MBEDTLS_BIGNUM_C) && \
    defined(MBEDTLS_ECP_DP_CURVE25519_ENABLED)
inline constexpr bool kMbedTlsHasX25519 = true;
#else
inline constexpr bool kMbedTlsHasX25519 = false;
#endif

// Mbed TLS's f_rng over a RandomByteSource (for its coordinate blinding).
inline int MbedTlsRandomCallback(void* source, unsigned char* out,
                                 size_t length) {
  return static_cast<RandomByteSource*>(source)
                 ->Generate(ByteSpan(reinterpret_cast<std::byte*>(out), length))
                 .ok()
             ? 0
             : -1;
}

// X25519 by mbedtls_ecp_mul on Curve25519: 0 and out on success, else
// Mbed TLS's error.
inline int MbedTlsX25519(const unsigned char* scalar_in,
                         const unsigned char* u_in, RandomByteSource& random,
                         unsigned char* out) {
  unsigned char scalar[32];
  unsigned char u[32];
  std::memcpy(scalar, scalar_in, 32);
  std::memcpy(u, u_in, 32);
  scalar[0] &= 248;
  scalar[31] &= 127;
  scalar[31] |= 64;
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
  if (rc == 0) rc = mbedtls_mpi_read_binary_le(&d, scalar, 32);
  if (rc == 0) rc = mbedtls_mpi_read_binary_le(&point.X, u, 32);
  if (rc == 0) rc = mbedtls_mpi_lset(&point.Z, 1);
  if (rc == 0) {
    rc = mbedtls_ecp_mul(&group, &result, &d, &point, MbedTlsRandomCallback,
                         &random);
  }
  if (rc == 0) rc = mbedtls_mpi_write_binary_le(&result.X, out, 32);
  mbedtls_mpi_free(&d);
  mbedtls_ecp_point_free(&result);
  mbedtls_ecp_point_free(&point);
  mbedtls_ecp_group_free(&group);
  return rc;
}

}  // namespace edgeadmm
