#include "edgeadmm/rounds/epsilon_memo.h"

namespace edgeadmm::rounds {

double EpsilonMemo::Epsilon(const std::vector<double>& rdp) {
  auto it = epsilon_.find(rdp);
  if (it != epsilon_.end()) return it->second;
  const double epsilon = accountant_->Epsilon(rdp, delta_);
  ++conversions_;
  if (epsilon_.size() >= kMaxCurves) epsilon_.clear();
  epsilon_.emplace(rdp, epsilon);
  return epsilon;
}

}  // namespace edgeadmm::rounds
