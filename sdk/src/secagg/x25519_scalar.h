// The clamping of an X25519 scalar (RFC 7748 §5, decodeScalar25519),
// private to the SDK's secagg folder: the three low bits cleared (a multiple
// of the cofactor 8), bit 255 cleared and bit 254 set. X25519 clamps every
// scalar it is given; X25519KeyPair stores its private key clamped, so the
// stored key is the scalar that runs.
#pragma once

#include "edgeadmm/secagg/key_agreement.h"

namespace edgeadmm {
namespace secagg_internal {

// `scalar` points at kX25519KeyBytes bytes, little-endian.
inline void ClampX25519Scalar(unsigned char* scalar) {
  scalar[0] &= 248;
  scalar[kX25519KeyBytes - 1] &= 127;
  scalar[kX25519KeyBytes - 1] |= 64;
}

}  // namespace secagg_internal
}  // namespace edgeadmm
