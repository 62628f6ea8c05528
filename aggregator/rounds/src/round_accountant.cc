#include "edgeadmm/rounds/round_accountant.h"

#include <limits>

#include "edgeadmm/assert.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/privacy/mechanism.h"
#include "edgeadmm/privacy/rdp_curve.h"

namespace edgeadmm::rounds {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

std::vector<double> PrivacyRoundAccountant::RoundRdp(
    const RoundMechanism& m) const {
  const size_t size = orders().size();
  if (m.sampling_rate <= 0) return std::vector<double>(size, 0.0);
  if (!(m.noise_multiplier > 0)) return std::vector<double>(size, kInf);
  privacy::Mechanism mechanism;
  if (m.sampling_rate < 1) {
    mechanism.kind = privacy::MechanismKind::kPoissonSubsampledGaussian;
    mechanism.neighbouring = privacy::Neighbouring::kAddRemove;
    mechanism.sampling_rate = m.sampling_rate;
  }
  mechanism.sensitivity = 1.0;
  mechanism.noise_std = m.noise_multiplier;
  auto curve =
      privacy::ComputeRdpCurve(mechanism, grid_);
  if (!curve.ok()) return std::vector<double>(size, kInf);
  return curve->values();
}

double PrivacyRoundAccountant::Epsilon(const std::vector<double>& rdp,
                                       double delta) const {
  auto curve =
      privacy::RdpCurve::FromValues(grid_, rdp);
  if (!curve.ok()) return kInf;
  auto eps = privacy::EpsilonFromRdp(*curve, delta, conversion_);
  if (!eps.ok()) return kInf;
  // Above the cap the sampler's bounded tails are no longer negligible
  // (docs/privacy.md, "Sampler tails"): not protected.
  return eps->epsilon <= DevicePrivacyLedger::kMaxReportableEpsilon
             ? eps->epsilon
             : kInf;
}

const privacy::OrderGrid& DeviceLedgerGrid() {
  static const privacy::OrderGrid grid =
      privacy::OrderGrid::Create(
          std::vector<double>(
              DevicePrivacyLedger::kOrders,
              DevicePrivacyLedger::kOrders + DevicePrivacyLedger::kOrderCount))
          .value();
  return grid;
}

void ComposeRdp(std::vector<double>& a, const std::vector<double>& b) {
  EDGEADMM_ASSERT(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
}

}  // namespace edgeadmm::rounds
