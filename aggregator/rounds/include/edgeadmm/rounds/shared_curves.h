// SharedCurves: the RDP curves of a job's per-device ledgers (LedgerBook's
// "central:<id>" and "local:<id>"), each distinct curve held once. Devices
// with the same history of charges carry the same curve bit for bit (every
// device of a fixed cohort, most of a sampled one), so a job's ledgers take
// memory per distinct curve instead of two curves of 156 orders (2 x 1,248
// bytes) per device, 81 MB at 32,561 devices (docs/results.md, "What the
// daemon keeps per device").
//
// A curve is immutable; a ledger moves to another curve by Replace, which
// forgets the old one when no ledger holds it any more.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_set>
#include <vector>

#include "edgeadmm/rounds/curve_bytes.h"

namespace edgeadmm::rounds {

class SharedCurves {
 public:
  using Curve = std::shared_ptr<const std::vector<double>>;

  // A new curve: `curve` composed with `step` (ComposeRdp: added order by
  // order), not held yet (a charge planned but not applied costs nothing
  // once dropped).
  static Curve Composed(const Curve& curve, const std::vector<double>& step);
  // The held curve equal to `curve` (`curve` is held from now on if none
  // is): what a new ledger starts on.
  Curve Hold(Curve curve);
  // Points `slot` (a ledger) at Hold(next), and forgets the curve `slot`
  // held if no other ledger holds it.
  void Replace(Curve& slot, Curve next);

  // Distinct curves held (tests, profiles).
  size_t size() const { return curves_.size(); }

 private:
  struct Hash {
    size_t operator()(const Curve& curve) const { return CurveBytes{}(*curve); }
  };
  struct Equal {
    bool operator()(const Curve& a, const Curve& b) const {
      return CurveBytes{}(*a, *b);
    }
  };
  std::unordered_set<Curve, Hash, Equal> curves_;
};

}  // namespace edgeadmm::rounds
