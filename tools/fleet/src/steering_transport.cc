#include "edgeadmm/fleet/steering_transport.h"

#include <cmath>

namespace edgeadmm::fleet {

double SteeringTransport::StepLength(int64_t k, int64_t p) const {
  if (mode_ == SteeringMode::kOneUpload) return 0.9999 * bound_.Norm(1, p);
  return 0.999 * (bound_.Norm(k, p) - bound_.Norm(k - 1, p));
}

void SteeringTransport::Rewrite(wire::DecodedUpdate& update) {
  if (rounds_ == 0 || update.header.round_id != last_round_id_) {
    ++rounds_;
    last_round_id_ = update.header.round_id;
  }
  const int64_t p = static_cast<int64_t>(update.vector.size());
  if (p == 0) return;
  const double per_coordinate =
      StepLength(rounds_, p) / std::sqrt(static_cast<double>(p));
  for (Real& v : update.vector) v = static_cast<Real>(per_coordinate);
}

}  // namespace edgeadmm::fleet
