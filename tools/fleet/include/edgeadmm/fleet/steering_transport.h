// SteeringTransport: a malicious enrolled device for the fleet
// (`edgeadmm-fleet connect --steering-devices`), the attack of
// docs/security.md "Influence across rounds" performed on the real stack.
// Whatever the device's local step computed, every update it sends becomes
// a step of the largest length the gateway's rule allows, along one fixed
// direction u = (1, …, 1)/√p:
//   kOneUpload: 0.9999·Norm(1, p) every round (what the one-upload bound
//               alone allows);
//   kSum:       0.999·(Norm(k, p) − Norm(k − 1, p)) in the device's k-th
//               round, so that its sum stays just within Norm(k, p).
// Norm is host::UploadBound's, for the signal and noise the operator gives
// (e.g. 2λC and λσ for prox-admm). Rounds are counted by round id, so a
// retransmission is not a new round. Linux fleet tool only.
#pragma once

#include <cstdint>

#include "edgeadmm/fleet/update_rewrite_transport.h"
#include "edgeadmm/host/upload_bound.h"

namespace edgeadmm::fleet {

enum class SteeringMode : uint8_t { kOneUpload, kSum };

class SteeringTransport final : public UpdateRewriteTransport {
 public:
  // `inner` must outlive this decorator.
  SteeringTransport(Transport& inner, host::UploadBound bound,
                    SteeringMode mode)
      : UpdateRewriteTransport(inner), bound_(bound), mode_(mode) {}

  // The length of the step it sends in its `k`-th round (k >= 1) for
  // uploads of `p` values.
  double StepLength(int64_t k, int64_t p) const;

 private:
  void Rewrite(wire::DecodedUpdate& update) override;

  host::UploadBound bound_;
  SteeringMode mode_;
  uint64_t last_round_id_ = 0;
  int64_t rounds_ = 0;  // distinct rounds it has sent an update for
};

}  // namespace edgeadmm::fleet
