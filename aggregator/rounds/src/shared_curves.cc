#include "edgeadmm/rounds/shared_curves.h"

#include <utility>

#include "edgeadmm/rounds/round_accountant.h"

namespace edgeadmm::rounds {

SharedCurves::Curve SharedCurves::Composed(const Curve& curve,
                                           const std::vector<double>& step) {
  std::vector<double> next = *curve;
  ComposeRdp(next, step);
  return std::make_shared<const std::vector<double>>(std::move(next));
}

SharedCurves::Curve SharedCurves::Hold(Curve curve) {
  return *curves_.insert(std::move(curve)).first;
}

void SharedCurves::Replace(Curve& slot, Curve next) {
  Curve old = std::exchange(slot, Hold(std::move(next)));
  // Held by the set and by `old` only: no ledger points at it any more.
  if (old == nullptr || old == slot || old.use_count() != 2) return;
  const auto it = curves_.find(old);
  if (it != curves_.end() && *it == old) curves_.erase(it);
}

}  // namespace edgeadmm::rounds
