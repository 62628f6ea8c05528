// RoundAccountant: what the round engine needs from a privacy accountant
// (an RDP curve per round, composition by addition, conversion to ε).
//
// FallbackRdpAccountant is a small self-contained implementation used until
// the accountant library (aggregator/privacy) is wired in; it implements the
// same mechanisms as ARCHITECTURE.md section 6 on integer orders only.
#pragma once

#include <cstddef>
#include <vector>

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
  // Number of orders of every RDP curve this accountant returns.
  virtual size_t order_count() const = 0;
  // The RDP curve ε_α of one round (entries may be +inf, e.g. for ν = 0).
  virtual std::vector<double> RoundRdp(const RoundMechanism& m) const = 0;
  // (ε, δ)-DP of an RDP curve (composed by adding curves).
  virtual double Epsilon(const std::vector<double>& rdp,
                         double delta) const = 0;
};

class FallbackRdpAccountant final : public RoundAccountant {
 public:
  FallbackRdpAccountant();
  size_t order_count() const override { return orders_.size(); }
  // Gaussian: ε_α = α/(2ν²) (Mironov 2017, Prop. 7). Poisson-subsampled
  // Gaussian at integer α (Mironov, Talwar, Zhang 2019, Sec. 3.3):
  // ε_α = log(Σ_k C(α,k)(1−q)^{α−k} q^k exp((k²−k)/(2ν²))) / (α−1).
  std::vector<double> RoundRdp(const RoundMechanism& m) const override;
  // Classic conversion ε = min_α ε_α + log(1/δ)/(α−1) (Mironov 2017, Prop. 3).
  double Epsilon(const std::vector<double>& rdp, double delta) const override;

 private:
  std::vector<double> orders_;
};

// Adds `b` into `a` element-wise (composition). Sizes must match.
void ComposeRdp(std::vector<double>& a, const std::vector<double>& b);

}  // namespace edgeadmm::rounds
