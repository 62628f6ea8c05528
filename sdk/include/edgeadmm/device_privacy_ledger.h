// DevicePrivacyLedger: the device's own local-DP ledger (w.r.t. the
// aggregator), see docs/privacy.md ("local-dp" and "Why device-side noise
// gets no sampling amplification").
//
// Each participation releases one Gaussian mechanism: the update
// 2λ·Clip(x − z, C) + λη with η ~ N(0, σ² I) (paper 002, Alg. 3) has
// replace-one sensitivity Δ = 4λC and noise std s = λσ. Its Rényi DP at
// order α is α·Δ²/(2s²) (Mironov 2017, Prop. 7). RDP composes additively
// over participations (Mironov 2017, Prop. 1), so the ledger keeps the sum
// per order on a fixed grid, and converts to (ε, δ)-DP with the improved
// bound (Canonne, Kamath, Steinke 2020, Prop. 12; Asoodeh et al. 2021), the
// same conversion the aggregator and the CLI use:
//     ε(δ) = min_α  RDP(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1),
// never above the classic ln(1/δ)/(α − 1) form (Mironov 2017, Prop. 3).
// An ε above kMaxReportableEpsilon is reported as +inf (not protected): the
// sampler's floor adds e^ε·p to δ, p < 2^-958 (docs/privacy.md, "Sampler
// tails"), which is negligible only while ε is bounded.
// Fixed-size arrays only; no heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

class DevicePrivacyLedger {
 public:
  // Orders: 1.1, 1.25, 1.5, 1.75, then 2, 3, ..., 64, then 128, 256.
  static constexpr size_t kOrderCount = 4 + 63 + 2;
  static const double kOrders[kOrderCount];

  // Largest ε reported as such; above it Epsilon is +inf, which exceeds
  // every finite budget. At ε ≤ 600 the sampler floor adds at most 1.55e-28
  // to δ.
  static constexpr double kMaxReportableEpsilon = 600;

  // Adds one Gaussian mechanism with L2 sensitivity `sensitivity` and noise
  // standard deviation `noise_std`. INVALID_ARGUMENT if either is ≤ 0, NaN
  // or infinite, or if the accumulated RDP would overflow; OUT_OF_RANGE if
  // the participation counter is saturated. The ledger is unchanged on
  // error.
  Status Charge(double sensitivity, double noise_std);

  // ε spent at `delta` (improved RDP conversion, minimised over the grid);
  // +inf if above kMaxReportableEpsilon. INVALID_ARGUMENT unless
  // 0 < delta < 1. 0 if never charged.
  Result<double> Epsilon(double delta) const;

  // Whether one more Charge(sensitivity, noise_std) would make Epsilon(delta)
  // (+inf above kMaxReportableEpsilon) strictly greater than
  // `epsilon_budget`: any finite budget stops at 600; a budget of +inf (no
  // limit asked for) never does. Checked before a round: a round is allowed
  // iff this returns false. INVALID_ARGUMENT for arguments
  // Charge or Epsilon would refuse, or a negative or NaN budget.
  Result<bool> WouldExceed(double sensitivity, double noise_std,
                           double epsilon_budget, double delta) const;

  // Adds every charge of `other` (RDP composes additively, whatever the
  // charges were): afterwards the ledger accounts both sequences, e.g. a
  // device's earlier jobs and its current one. INVALID_ARGUMENT if a sum
  // would overflow, OUT_OF_RANGE if the participation count would; the
  // ledger is unchanged on error.
  Status Compose(const DevicePrivacyLedger& other);

  // Number of charges so far.
  uint32_t participations() const { return participations_; }

  // Accumulated RDP per order of kOrders (for serialization).
  Span<const double> rdp() const {
    return Span<const double>(rdp_, kOrderCount);
  }

  // Replaces the ledger by a persisted one. INVALID_ARGUMENT (ledger
  // unchanged) unless rdp has kOrderCount finite, non-negative values that
  // are non-decreasing in the order (true of any Rényi divergence), all zero
  // iff participations is 0.
  Status Restore(uint32_t participations, Span<const double> rdp);

 private:
  // min over the grid of (rdp_[i] + kOrders[i]·extra) plus the improved
  // conversion's term at α_i.
  double EpsilonWithExtra(double extra_per_order, double delta) const;

  uint32_t participations_ = 0;
  double rdp_[kOrderCount] = {};
};

}  // namespace edgeadmm
