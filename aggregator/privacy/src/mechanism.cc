#include "edgeadmm/privacy/mechanism.h"

#include <cmath>

#include "checks.h"
#include "edgeadmm/privacy/distributed_discrete_gaussian.h"
#include "edgeadmm/privacy/gaussian_mechanism.h"
#include "edgeadmm/privacy/sampled_without_replacement.h"
#include "edgeadmm/privacy/subsampled_gaussian.h"

namespace edgeadmm::privacy {
namespace {

DistributedDiscreteGaussian DdgOf(const Mechanism& m) {
  DistributedDiscreteGaussian ddg;
  ddg.l2_sensitivity = m.sensitivity;
  ddg.l1_sensitivity = m.l1_sensitivity;
  ddg.devices = m.devices;
  ddg.dimension = m.dimension;
  ddg.sigma = m.devices == 0
                  ? 0.0
                  : m.noise_std / std::sqrt(static_cast<double>(m.devices));
  return ddg;
}

}  // namespace

const char* MechanismName(MechanismKind kind) {
  switch (kind) {
    case MechanismKind::kGaussian:
      return "gaussian";
    case MechanismKind::kPoissonSubsampledGaussian:
      return "poisson_subsampled_gaussian";
    case MechanismKind::kSampledWithoutReplacementGaussian:
      return "sampled_without_replacement_gaussian";
    case MechanismKind::kDistributedDiscreteGaussian:
      return "distributed_discrete_gaussian";
  }
  return "unknown";
}

const char* NeighbouringName(Neighbouring neighbouring) {
  switch (neighbouring) {
    case Neighbouring::kAddRemove:
      return "add/remove";
    case Neighbouring::kZeroOut:
      return "zero-out";
    case Neighbouring::kReplaceOne:
      return "replace-one";
  }
  return "unknown";
}

host::ErrorOr<MechanismKind> ParseMechanismKind(const std::string& name) {
  if (name == "gaussian" || name == "none") return MechanismKind::kGaussian;
  if (name == "poisson_subsampled_gaussian" || name == "poisson") {
    return MechanismKind::kPoissonSubsampledGaussian;
  }
  if (name == "sampled_without_replacement_gaussian" || name == "fixed") {
    return MechanismKind::kSampledWithoutReplacementGaussian;
  }
  return host::Error::InvalidArgument("unknown mechanism/sampling '" + name +
                                      "' (expected none, poisson or fixed)");
}

host::Error ValidateMechanism(const Mechanism& m) {
  EDGEADMM_HOST_TRY(internal::CheckPositive("sensitivity", m.sensitivity));
  EDGEADMM_HOST_TRY(internal::CheckPositive("noise std", m.noise_std));
  EDGEADMM_HOST_TRY(internal::CheckRate("sampling rate", m.sampling_rate));
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("noise multiplier", m.NoiseMultiplier()));
  switch (m.kind) {
    case MechanismKind::kGaussian:
      if (m.sampling_rate != 1.0) {
        return host::Error::InvalidArgument(
            "the plain Gaussian mechanism has no sampling (rate must be 1)");
      }
      return host::Error::Ok();
    case MechanismKind::kPoissonSubsampledGaussian:
      if (m.neighbouring != Neighbouring::kAddRemove) {
        return host::Error::InvalidArgument(
            "the Poisson-subsampled Gaussian is accounted under add/remove "
            "neighbours only");
      }
      return host::Error::Ok();
    case MechanismKind::kSampledWithoutReplacementGaussian:
      if (m.neighbouring != Neighbouring::kReplaceOne) {
        return host::Error::InvalidArgument(
            "sampling without replacement is accounted under replace-one "
            "neighbours only");
      }
      return host::Error::Ok();
    case MechanismKind::kDistributedDiscreteGaussian:
      if (m.sampling_rate != 1.0) {
        return host::Error::InvalidArgument(
            "the distributed discrete Gaussian has no sampling (rate must be "
            "1)");
      }
      return CheckDistributedDiscreteGaussian(DdgOf(m));
  }
  return host::Error::InvalidArgument("unknown mechanism kind");
}

host::ErrorOr<double> RdpAt(const Mechanism& m, double alpha) {
  EDGEADMM_HOST_TRY(ValidateMechanism(m));
  const double z = m.NoiseMultiplier();
  switch (m.kind) {
    case MechanismKind::kGaussian:
      return GaussianRdp(alpha, z);
    case MechanismKind::kPoissonSubsampledGaussian:
      return PoissonSubsampledGaussianRdp(m.sampling_rate, z, alpha);
    case MechanismKind::kSampledWithoutReplacementGaussian:
      return WithoutReplacementGaussianRdp(m.sampling_rate, z, alpha);
    case MechanismKind::kDistributedDiscreteGaussian:
      return DistributedDiscreteGaussianRdp(alpha, DdgOf(m));
  }
  return host::Error::InvalidArgument("unknown mechanism kind");
}

host::ErrorOr<RdpCurve> ComputeRdpCurve(const Mechanism& m,
                                        const OrderGrid& grid) {
  EDGEADMM_HOST_TRY(ValidateMechanism(m));
  if (m.kind == MechanismKind::kDistributedDiscreteGaussian) {
    EDGEADMM_HOST_TRY_ASSIGN(
        std::vector<double> values,
        DistributedDiscreteGaussianRdpCurve(DdgOf(m), grid.orders()));
    return RdpCurve::FromValues(grid, std::move(values));
  }
  if (m.kind == MechanismKind::kPoissonSubsampledGaussian) {
    EDGEADMM_HOST_TRY_ASSIGN(
        std::vector<double> values,
        PoissonSubsampledGaussianRdpCurve(m.sampling_rate, m.NoiseMultiplier(),
                                          grid.orders()));
    return RdpCurve::FromValues(grid, std::move(values));
  }
  std::vector<double> values(grid.size());
  for (size_t i = 0; i < grid.size(); ++i) {
    EDGEADMM_HOST_TRY_ASSIGN(values[i], RdpAt(m, grid[i]));
  }
  return RdpCurve::FromValues(grid, std::move(values));
}

}  // namespace edgeadmm::privacy
