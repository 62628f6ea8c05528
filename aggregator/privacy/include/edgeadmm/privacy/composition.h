// Accountant: adaptive composition of heterogeneous mechanisms for one
// subject (Mironov 2017, Prop. 1: RDP adds order by order), plus a cache of
// per-mechanism curves so that composing a round is one vector add.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/mechanism.h"
#include "edgeadmm/privacy/rdp_curve.h"

namespace edgeadmm::privacy {

// Per-mechanism RDP curves keyed by (kind, sampling rate, noise multiplier,
// and for the distributed discrete Gaussian D2, D1, n, d): the only
// parameters the RDP depends on.
class CurveCache {
 public:
  explicit CurveCache(OrderGrid grid = OrderGrid::Default())
      : grid_(std::move(grid)) {}

  // The curve of `mechanism` on this cache's grid, computed on first use.
  // INVALID_ARGUMENT on an invalid mechanism.
  host::ErrorOr<const RdpCurve*> Get(const Mechanism& mechanism);

  const OrderGrid& grid() const { return grid_; }
  size_t size() const { return curves_.size(); }

 private:
  OrderGrid grid_;
  std::map<std::tuple<int, double, double, double, double, uint64_t, uint64_t>,
           RdpCurve>
      curves_;
};

class Accountant {
 public:
  explicit Accountant(OrderGrid grid = OrderGrid::Default());

  // Composes `times` applications of `mechanism` (curve from `cache` when
  // given; the cache must use this accountant's grid). INVALID_ARGUMENT on an
  // invalid mechanism or a cache on another grid.
  host::Error Compose(const Mechanism& mechanism, uint64_t times = 1,
                      CurveCache* cache = nullptr);

  // Composes a precomputed per-application curve of `mechanism`.
  // INVALID_ARGUMENT when the grids differ.
  host::Error ComposeCurve(const RdpCurve& curve, const Mechanism& mechanism,
                           uint64_t times = 1);

  // Epsilon for `delta`, labelled with mechanisms and neighbouring relations
  // composed so far ("none" before the first composition).
  // INVALID_ARGUMENT when delta is not in (0, 1).
  host::ErrorOr<EpsilonReport> Epsilon(double delta,
                                       Conversion conversion) const;

  // Delta for `epsilon`. INVALID_ARGUMENT for a negative or infinite epsilon.
  host::ErrorOr<ConvertedDelta> Delta(double epsilon,
                                      Conversion conversion) const;

  const RdpCurve& curve() const { return curve_; }
  uint64_t compositions() const { return compositions_; }
  // "gaussian", or several kinds joined by '+', or "none".
  std::string MechanismLabel() const;
  // "zero-out", or several relations joined by '+', or "none".
  std::string NeighbouringLabel() const;

  // Bit sets of the MechanismKind / Neighbouring values composed, for
  // persistence.
  uint8_t mechanism_bits() const { return mechanism_bits_; }
  uint8_t neighbouring_bits() const { return neighbouring_bits_; }
  // Rebuilds an accountant from persisted state. INVALID_ARGUMENT when the
  // bit sets name unknown values.
  static host::ErrorOr<Accountant> Restore(RdpCurve curve,
                                           uint64_t compositions,
                                           uint8_t mechanism_bits,
                                           uint8_t neighbouring_bits);

 private:
  RdpCurve curve_;
  uint64_t compositions_ = 0;
  uint8_t mechanism_bits_ = 0;
  uint8_t neighbouring_bits_ = 0;
};

}  // namespace edgeadmm::privacy
