// RandomByteSource: where GaussianSampler takes its random bytes from.
//
// In the SDK this is always a Drbg (drbg.h). The interface exists so that a
// test can feed the sampler a scripted byte stream and reach draws whose
// probability is far too small to hit from a seed (e.g. a uniform below
// 2^-60). No heap; no ownership.
#pragma once

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

class RandomByteSource {
 public:
  // Fills `out` completely, or returns a non-OK status (then `out` is
  // unspecified and must not be used).
  virtual Status Generate(ByteSpan out) = 0;

 protected:
  ~RandomByteSource() = default;
};

}  // namespace edgeadmm
