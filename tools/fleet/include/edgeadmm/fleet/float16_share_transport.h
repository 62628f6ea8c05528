// Float16ShareTransport: a Transport decorator for the fleet's devices that
// rounds every value of an admm-sharing upload (the noisy share, and the
// partial scores of a scoring phase) to the nearest IEEE float16 value before
// it is sent (`edgeadmm-fleet connect --share-float16`). It measures on the
// real stack what a float16 share encoding would do to the iteration (issue
// 15; docs/results.md "float16 shares"): the values are float16, the bytes
// stay the protocol's float32 (the wire format is unchanged, so the upload
// is not smaller). Rounding the released, already-noisy values is
// post-processing: the device's ε is unchanged (docs/privacy.md). It does
// not stream (update_rewrite_transport.h). Linux fleet tool only.
#pragma once

#include "edgeadmm/fleet/update_rewrite_transport.h"

namespace edgeadmm::fleet {

// The float16 value nearest to `v` (ties to even), saturated at ±65,504
// (float16's largest finite value) instead of overflowing to ±inf; below
// 2^-14 on the subnormal grid 2^-24. Non-finite input is returned as is.
double RoundToFloat16(double v);

class Float16ShareTransport final : public UpdateRewriteTransport {
 public:
  // `inner` must outlive this decorator.
  explicit Float16ShareTransport(Transport& inner)
      : UpdateRewriteTransport(inner) {}

 private:
  void Rewrite(wire::DecodedUpdate& update) override;
};

}  // namespace edgeadmm::fleet
