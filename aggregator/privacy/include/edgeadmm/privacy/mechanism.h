// Mechanism: what one release (one round) actually does, as the accountant
// needs it: the kind of mechanism, the neighbouring relation the sensitivity
// refers to, the L2 sensitivity, the noise std and the sampling rate.
#pragma once

#include <cstdint>
#include <string>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/rdp_curve.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::privacy {

enum class MechanismKind : uint8_t {
  kGaussian = 0,                           // gaussian_mechanism.h
  kPoissonSubsampledGaussian = 1,          // subsampled_gaussian.h
  kSampledWithoutReplacementGaussian = 2,  // sampled_without_replacement.h
  kDistributedDiscreteGaussian = 3,        // distributed_discrete_gaussian.h
};

enum class Neighbouring : uint8_t {
  kAddRemove = 0,   // one subject's data present in one world, absent in other
  kZeroOut = 1,     // the subject is present in both; its data is a null record
  kReplaceOne = 2,  // one subject's data replaced by arbitrary other data
};

struct Mechanism {
  MechanismKind kind = MechanismKind::kGaussian;
  Neighbouring neighbouring = Neighbouring::kAddRemove;
  double sensitivity = 1.0;    // L2 sensitivity under `neighbouring`
  double noise_std = 1.0;      // std of the Gaussian noise on the released sum
  double sampling_rate = 1.0;  // Poisson q, or m/n without replacement; 1 else
  // Only for kDistributedDiscreteGaussian (on the integer grid): then
  // `sensitivity` is the L2 sensitivity D2, `noise_std` the std of the
  // summed noise, sqrt(devices) times each device's sigma, and these are
  // the L1 sensitivity D1, the number n of devices whose noise is secret
  // from the observer and the dimension d of the sum.
  double l1_sensitivity = 0.0;
  uint64_t devices = 0;
  uint64_t dimension = 0;

  double NoiseMultiplier() const { return noise_std / sensitivity; }
};

// "gaussian", "poisson_subsampled_gaussian",
// "sampled_without_replacement_gaussian", "distributed_discrete_gaussian".
const char* MechanismName(MechanismKind kind);
// "add/remove", "zero-out", "replace-one".
const char* NeighbouringName(Neighbouring neighbouring);
// Inverse of MechanismName (also accepts "poisson", "none", "fixed").
// INVALID_ARGUMENT for an unknown name.
host::ErrorOr<MechanismKind> ParseMechanismKind(const std::string& name);

// OK when the descriptor is usable: sensitivity and noise finite and > 0,
// rate in (0, 1] (exactly 1 for the plain Gaussian), add/remove for Poisson
// sampling and replace-one for sampling without replacement (the relations
// the bounds are proven for); for the distributed discrete Gaussian rate 1,
// n, d >= 1, D1 > 0 and each device's sigma >= 1/2. INVALID_ARGUMENT
// otherwise.
host::Error ValidateMechanism(const Mechanism& mechanism);

// RDP of one application of `mechanism` at order alpha. INVALID_ARGUMENT on
// an invalid mechanism or order.
host::ErrorOr<double> RdpAt(const Mechanism& mechanism, double alpha);

// RDP of one application of `mechanism` on every order of `grid`.
// INVALID_ARGUMENT on an invalid mechanism.
host::ErrorOr<RdpCurve> ComputeRdpCurve(const Mechanism& mechanism,
                                        const OrderGrid& grid);

}  // namespace edgeadmm::privacy
