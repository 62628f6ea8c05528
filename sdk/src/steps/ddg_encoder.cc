// The device's encoder of the distributed discrete Gaussian (see
// ddg_encoder.h).
#include "edgeadmm/ddg_encoder.h"

#include <cmath>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/result.h"
#include "edgeadmm/secagg/ddg_encoding.h"

namespace edgeadmm {
namespace {

constexpr size_t kSeedBytes = 32;

Status CheckSizes(const DdgRoundPlan& plan, ConstByteSpan rotation_seed,
                  Span<const Real> update, const DdgEncoderScratch& scratch) {
  EDGEADMM_TRY(ValidateDdgRoundPlan(plan));
  const size_t padded = DdgPaddedDimension(plan.dimension);
  if (update.size() != plan.dimension || rotation_seed.size() != kSeedBytes ||
      scratch.real.size() != padded || scratch.integers.size() != padded ||
      scratch.sign_words.size() < DdgSignWords(padded)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

// scratch.real = the update clipped to L2 norm plan.clip, zero-padded.
Status ClipAndPad(const DdgRoundPlan& plan, Span<const Real> update,
                  Span<Real> out) {
  double sq = 0;
  for (Real v : update) {
    const double x = static_cast<double>(v);
    if (!std::isfinite(x)) return Status::InvalidArgument();
    sq += x * x;
  }
  const double norm = std::sqrt(sq);
  if (!std::isfinite(norm)) return Status::InvalidArgument();
  const double factor = norm > plan.clip ? plan.clip / norm : 1.0;
  for (size_t j = 0; j < out.size(); ++j) {
    out[j] = j < update.size()
                 ? static_cast<Real>(static_cast<double>(update[j]) * factor)
                 : Real(0);
  }
  return Status::Ok();
}

void Zeroize(DdgEncoderScratch scratch, Span<uint32_t> words) {
  for (Real& v : scratch.real) v = 0;
  for (int64_t& v : scratch.integers) v = 0;
  for (uint32_t& v : words) v = 0;
}

// z_j += N_Z(0, num/den), added mod 2^64 (the words keep the low bits).
Status AddNoise(const DdgRoundPlan& plan, RandomByteSource& random,
                Span<int64_t> z) {
  EDGEADMM_TRY_ASSIGN(
      const DiscreteGaussian noise,
      DiscreteGaussian::Create(plan.sigma2_num, plan.sigma2_den));
  DiscreteGaussianSampler sampler(random);
  for (int64_t& v : z) {
    EDGEADMM_TRY_ASSIGN(const int64_t n, sampler.Sample(noise));
    v = static_cast<int64_t>(static_cast<uint64_t>(v) +
                             static_cast<uint64_t>(n));
  }
  return Status::Ok();
}

}  // namespace

Status DdgRoundUpdate(const DdgRoundPlan& plan, ConstByteSpan rotation_seed,
                      uint64_t round_id, Span<const Real> update,
                      RandomByteSource& random, DdgEncoderScratch scratch) {
  EDGEADMM_TRY(CheckSizes(plan, rotation_seed, update, scratch));
  EDGEADMM_TRY(ClipAndPad(plan, update, scratch.real));
  EDGEADMM_TRY(
      DdgRotate(rotation_seed, round_id, scratch.real, scratch.sign_words));
  const double inverse_gamma = 1.0 / plan.gamma;
  for (Real& v : scratch.real) {
    v = static_cast<Real>(static_cast<double>(v) * inverse_gamma);
  }
  return ConditionalRandomizedRound(scratch.real, DdgPlanNormBound(plan),
                                    random, kDdgRoundingAttempts,
                                    scratch.integers);
}

Status DdgEncodeUpdate(const DdgRoundPlan& plan, ConstByteSpan rotation_seed,
                       uint64_t round_id, Span<const Real> update,
                       RandomByteSource& random, DdgEncoderScratch scratch,
                       Span<uint32_t> words) {
  Status status = words.size() == DdgPaddedDimension(plan.dimension)
                      ? DdgRoundUpdate(plan, rotation_seed, round_id, update,
                                       random, scratch)
                      : Status::InvalidArgument();
  if (status.ok()) status = AddNoise(plan, random, scratch.integers);
  if (status.ok()) status = WrapToModulus(scratch.integers, plan.bits, words);
  if (!status.ok()) Zeroize(scratch, words);
  return status;
}

}  // namespace edgeadmm
