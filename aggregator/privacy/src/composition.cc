#include "edgeadmm/privacy/composition.h"

namespace edgeadmm::privacy {
namespace {

constexpr uint8_t kMechanismBitsMask = 0xF;
constexpr uint8_t kNeighbouringBitsMask = 0x7;

template <typename Enum, typename NameFn>
std::string JoinBits(uint8_t bits, NameFn name, int values) {
  std::string label;
  for (int i = 0; i < values; ++i) {
    if ((bits & (1u << i)) == 0) continue;
    if (!label.empty()) label += '+';
    label += name(static_cast<Enum>(i));
  }
  return label.empty() ? "none" : label;
}

}  // namespace

host::ErrorOr<const RdpCurve*> CurveCache::Get(const Mechanism& mechanism) {
  EDGEADMM_HOST_TRY(ValidateMechanism(mechanism));
  // The distributed discrete Gaussian's tau depends on sigma itself, not
  // only on the multiplier: its key holds the sensitivities too.
  const bool ddg =
      mechanism.kind == MechanismKind::kDistributedDiscreteGaussian;
  const auto key = std::make_tuple(
      static_cast<int>(mechanism.kind), mechanism.sampling_rate,
      mechanism.NoiseMultiplier(), ddg ? mechanism.sensitivity : 0,
      mechanism.l1_sensitivity, mechanism.devices, mechanism.dimension);
  auto it = curves_.find(key);
  if (it == curves_.end()) {
    EDGEADMM_HOST_TRY_ASSIGN(RdpCurve curve, ComputeRdpCurve(mechanism, grid_));
    it = curves_.emplace(key, std::move(curve)).first;
  }
  return &it->second;
}

Accountant::Accountant(OrderGrid grid) : curve_(std::move(grid)) {}

host::Error Accountant::Compose(const Mechanism& mechanism, uint64_t times,
                                CurveCache* cache) {
  if (cache != nullptr) {
    if (cache->grid() != curve_.grid()) {
      return host::Error::InvalidArgument(
          "curve cache uses another order grid");
    }
    EDGEADMM_HOST_TRY_ASSIGN(const RdpCurve* curve, cache->Get(mechanism));
    return ComposeCurve(*curve, mechanism, times);
  }
  EDGEADMM_HOST_TRY_ASSIGN(RdpCurve curve,
                           ComputeRdpCurve(mechanism, curve_.grid()));
  return ComposeCurve(curve, mechanism, times);
}

host::Error Accountant::ComposeCurve(const RdpCurve& curve,
                                     const Mechanism& mechanism,
                                     uint64_t times) {
  if (times == 0) return host::Error::Ok();
  EDGEADMM_HOST_TRY(curve_.Compose(curve, times));
  compositions_ += times;
  mechanism_bits_ |=
      static_cast<uint8_t>(1u << static_cast<int>(mechanism.kind));
  neighbouring_bits_ |=
      static_cast<uint8_t>(1u << static_cast<int>(mechanism.neighbouring));
  return host::Error::Ok();
}

host::ErrorOr<EpsilonReport> Accountant::Epsilon(double delta,
                                                 Conversion conversion) const {
  EDGEADMM_HOST_TRY_ASSIGN(ConvertedEpsilon converted,
                           EpsilonFromRdp(curve_, delta, conversion));
  EpsilonReport report;
  // Nothing released yet: epsilon is exactly 0 (the conversion alone would
  // add log(1/delta)/(alpha-1)).
  report.epsilon = compositions_ == 0 ? 0.0 : converted.epsilon;
  report.delta = delta;
  report.order = compositions_ == 0 ? 0.0 : converted.order;
  report.conversion = conversion;
  report.mechanism = MechanismLabel();
  report.neighbouring = NeighbouringLabel();
  report.compositions = compositions_;
  return report;
}

host::ErrorOr<ConvertedDelta> Accountant::Delta(double epsilon,
                                                Conversion conversion) const {
  return DeltaFromRdp(curve_, epsilon, conversion);
}

std::string Accountant::MechanismLabel() const {
  return JoinBits<MechanismKind>(mechanism_bits_, MechanismName, 4);
}

std::string Accountant::NeighbouringLabel() const {
  return JoinBits<Neighbouring>(neighbouring_bits_, NeighbouringName, 3);
}

host::ErrorOr<Accountant> Accountant::Restore(RdpCurve curve,
                                              uint64_t compositions,
                                              uint8_t mechanism_bits,
                                              uint8_t neighbouring_bits) {
  if ((mechanism_bits & ~kMechanismBitsMask) != 0 ||
      (neighbouring_bits & ~kNeighbouringBitsMask) != 0) {
    return host::Error::InvalidArgument(
        "unknown mechanism or neighbouring bits");
  }
  Accountant accountant(curve.grid());
  accountant.curve_ = std::move(curve);
  accountant.compositions_ = compositions;
  accountant.mechanism_bits_ = mechanism_bits;
  accountant.neighbouring_bits_ = neighbouring_bits;
  return accountant;
}

}  // namespace edgeadmm::privacy
