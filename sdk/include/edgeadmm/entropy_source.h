// EntropySource: the entropy port of the SDK.
//
// A board implements it with its hardware TRNG (or getrandom(2) on Linux, see
// platform/posix/system); the SDK only reads it to seed and reseed the DRBG
// (drbg.h). It is injected at Init and must outlive its users.
#pragma once

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

class EntropySource {
 public:
  // Fills `out` completely with full-entropy bytes. Returns OK, or
  // UNAVAILABLE if it cannot (then the contents of `out` are unspecified).
  virtual Status Read(ByteSpan out) = 0;

 protected:
  ~EntropySource() = default;
};

}  // namespace edgeadmm
