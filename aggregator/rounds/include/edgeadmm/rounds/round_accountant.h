// RoundAccountant: what the round engine needs from a privacy accountant
// (an RDP curve per round, composition by addition, conversion to ε), and
// PrivacyRoundAccountant, its implementation over the accountant library
// (aggregator/privacy).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::rounds {

// One round's mechanism as seen by one ledger: a Gaussian with noise
// multiplier ν = noise std / sensitivity, Poisson-subsampled with rate q
// (q = 1: no subsampling).
struct RoundMechanism {
  double noise_multiplier = 0;
  double sampling_rate = 1;
};

class RoundAccountant {
 public:
  virtual ~RoundAccountant() = default;
  // The orders α of every RDP curve this accountant returns.
  virtual const std::vector<double>& orders() const = 0;
  size_t order_count() const { return orders().size(); }
  // The RDP curve ε_α of one round (entries may be +inf, e.g. for ν = 0).
  virtual std::vector<double> RoundRdp(const RoundMechanism& m) const = 0;
  // (ε, δ)-DP of an RDP curve (composed by adding curves).
  virtual double Epsilon(const std::vector<double>& rdp,
                         double delta) const = 0;
  // The conversion Epsilon uses (stored with every ledger row).
  virtual privacy::Conversion conversion() const = 0;
};

class PrivacyRoundAccountant final : public RoundAccountant {
 public:
  // `grid`: the orders of every curve (a device's own ledger uses fewer).
  explicit PrivacyRoundAccountant(
      privacy::Conversion conversion = privacy::Conversion::kImproved,
      privacy::OrderGrid grid = privacy::OrderGrid::Default())
      : conversion_(conversion), grid_(std::move(grid)) {}
  const std::vector<double>& orders() const override { return grid_.orders(); }
  // ν > 0, q = 1: Gaussian, ε_α = α/(2ν²) (Mironov 2017, Prop. 7);
  // q < 1: the library's Poisson-subsampled Gaussian (add/remove);
  // ν = 0: +inf at every order (no noise, no guarantee); q = 0: zero.
  std::vector<double> RoundRdp(const RoundMechanism& m) const override;
  // The conversion given at construction (default improved: Canonne, Kamath,
  // Steinke 2020), +inf if the
  // curve is unusable or ε exceeds DevicePrivacyLedger::kMaxReportableEpsilon
  // (the sampler-tails cap, docs/privacy.md).
  double Epsilon(const std::vector<double>& rdp, double delta) const override;
  privacy::Conversion conversion() const override { return conversion_; }

 private:
  privacy::Conversion conversion_;
  privacy::OrderGrid grid_;
};

// The orders of the device's own ledger (DevicePrivacyLedger::kOrders: 1.1,
// 1.25, 1.5, 1.75, 2, ..., 64, 128, 256): curves on this grid convert to the
// number the device computes.
const privacy::OrderGrid& DeviceLedgerGrid();

// Adds `b` into `a` element-wise (composition). Sizes must match.
void ComposeRdp(std::vector<double>& a, const std::vector<double>& b);

}  // namespace edgeadmm::rounds
