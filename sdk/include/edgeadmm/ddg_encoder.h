// The device's encoder of the distributed discrete Gaussian (Kairouz, Liu
// and Steinke, ICML 2021, "KLS", Alg. 1): one real update in, the words of
// Z_{2^b} that the device masks and uploads in a secure-aggregation round
// out. The steps are those of secagg/ddg_encoding.h, plus the clip and the
// noise: it lives in sdk/src/steps because it uses both the secagg unit and
// the noise unit (its discrete Gaussian sampler), which stand on one rank.
//
//   1. ValidateDdgRoundPlan; the update has plan.dimension entries, all
//      finite;
//   2. clip: if ||x||_2 > plan.clip, x <- x * clip / ||x||_2;
//   3. pad with zeros to d' = DdgPaddedDimension(d), rotate (DdgRotate with
//      the round's public seed and id), scale by 1/gamma;
//   4. conditional randomized rounding to ||z||_2 <= DdgPlanNormBound(plan)
//      (at most kDdgRoundingAttempts attempts);
//   5. z_j += N_Z(0, sigma2_num/sigma2_den), the SDK's exact sampler;
//   6. words_j = z_j mod 2^bits (WrapToModulus).
//
// The sensitivity the accountant charges (DdgPlanNormBound(plan) in grid
// steps, zero-out; twice that for replace-one) holds for every vector sent: the bound is
// checked exactly, in integers, on the rounded vector before the noise, so
// it does not rest on the clip in floating point (the clip only makes the
// first attempts succeed; an update the clip left above plan.clip by a
// rounding error can at worst need more attempts).
//
// No heap: the caller passes the buffers (DdgEncoderScratch).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/real.h"
#include "edgeadmm/secagg/ddg_plan.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// Rounding attempts before ABORTED: the expected number is at most
// 1/(1 - beta) (KLS §4.2), so for beta <= 1/2 failing all of them has
// probability below 2^-64.
constexpr int kDdgRoundingAttempts = 64;

// The caller's buffers, d' = DdgPaddedDimension(plan.dimension) entries
// each, sign_words at least DdgSignWords(d').
struct DdgEncoderScratch {
  Span<Real> real;
  Span<int64_t> integers;
  Span<uint32_t> sign_words;
};

constexpr size_t DdgSignWords(size_t padded) { return (padded + 31) / 32; }

// Steps 1-4: after OK, scratch.integers holds the rounded vector z (no
// noise), ||z||_2 <= DdgPlanNormBound(plan). INVALID_ARGUMENT for a plan
// ValidateDdgRoundPlan refuses, an update of another size or with a
// non-finite entry, scratch of other sizes, a seed that is not 32 bytes;
// ABORTED when every rounding attempt failed; the random source's error.
Status DdgRoundUpdate(const DdgRoundPlan& plan, ConstByteSpan rotation_seed,
                      uint64_t round_id, Span<const Real> update,
                      RandomByteSource& random, DdgEncoderScratch scratch);

// Steps 1-6: words (d' entries) is what the device masks and sends;
// scratch.integers then holds z + noise before the wrap. The
// errors of DdgRoundUpdate, INVALID_ARGUMENT for words of another size, and
// the sampler's (OUT_OF_RANGE for a sigma^2 outside its range). On an
// error, words and the scratch are zeroized.
Status DdgEncodeUpdate(const DdgRoundPlan& plan, ConstByteSpan rotation_seed,
                       uint64_t round_id, Span<const Real> update,
                       RandomByteSource& random, DdgEncoderScratch scratch,
                       Span<uint32_t> words);

}  // namespace edgeadmm
