// The distributed discrete Gaussian's parameters for a secure-aggregation
// job: the modulus 2^b, the grid step gamma and each device's noise sigma,
// from the job's target (epsilon, delta) over its rounds, the cohort size,
// the colluders t, the dropout threshold D, the dimension d and the clip C.
// The device encoding they drive is sdk/include/edgeadmm/secagg/ddg_encoding.h
// (rotate, scale by 1/gamma, conditional randomized rounding to the norm
// bound, discrete Gaussian N_Z(0, sigma_g^2) with sigma_g = sigma/gamma,
// wrap mod 2^b); the accountant's mechanism is
// aggregator/privacy/include/edgeadmm/privacy/distributed_discrete_gaussian.h.
//
// Privacy (charged per round, composed as RDP over the rounds, converted
// with the job's conversion): against the gateway and any t colluding
// devices, who see the unmasked sum of the survivors and know the
// colluders' own noise and vectors. At least n_h = cohort - D - t honest
// devices survive a completed round (below cohort - D the round aborts),
// and only their noise is secret, so the sum of n_h discrete Gaussians is
// charged. Neighbours: zero-out of one device's clipped update (its rounded
// vector is then exactly 0), so D2 = the rounding's norm bound on the grid
// and D1 = min(D2^2, sqrt(d') D2) (an integer vector with ||z||_2 <= D2 has
// ||z||_1 <= ||z||_2^2 and <= sqrt(d') ||z||_2).
//
// Wrap (the sum leaving the centred range [-2^(b-1), 2^(b-1)) in some
// coordinate, which corrupts the decoded sum; not a privacy event). For a
// padded coordinate j of the sum over the cohort's n devices,
// S_j = A_j + E_j + N_j:
//  - A_j = (H D y)_j/(gamma sqrt(d')), y = sum x_i, ||y|| <= n C, a
//    Rademacher sum over the public random signs D: E exp(l A_j) <=
//    exp(l^2 n^2 c^2/(2 d')), c = C/gamma;
//  - E_j the rounding errors, one per device, each in an interval of length
//    1 with mean 0 before conditioning (Hoeffding: exp(l^2/8)); conditioning
//    on the accepted norm (probability >= 1 - beta) multiplies each MGF by at
//    most 1/(1 - beta);
//  - N_j the sum of n N_Z(0, sigma_g^2): exp(l^2 n sigma_g^2/2) (Canonne,
//    Kamath, Steinke 2020: the discrete Gaussian is sigma-subgaussian).
// So with v = n^2 c^2/d' + n/4 + n sigma_g^2 and m = 2^(b-1), Chernoff and a
// union over the d' coordinates and both signs give
//   P(wrap) <= 2 d' (1 - beta)^(-n) exp(-m^2/(2 v)).
// beta defaults to 1/(8n), so the conditioning costs at most e^(1/7).
//
// The choice. For a given b the smallest gamma (the finest grid: least
// rounding error and the least norm-bound overhead) whose wrap bound meets
// the goal, with at that gamma the smallest sigma_g >= 1/2 meeting the
// target epsilon (both by bisection: the wrap bound grows as gamma falls,
// epsilon falls as sigma_g grows). b: the smallest number of bits (<=
// max_bits) whose predicted MSE is within (1 + mse_slack) of max_bits'.
// Predicted MSE of the decoded sum (no wrap), on the d' padded coordinates,
// for the whole cohort surviving: n d' gamma^2 (1/4 + sigma_g^2), the
// unconditioned rounding variance (<= 1/4 per coordinate) plus the noise.
// Host code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/mechanism.h"
#include "edgeadmm/secagg/ddg_plan.h"

namespace edgeadmm::secure_aggregation {

struct DdgGoal {
  double epsilon = 1.0;
  double delta = 1e-5;
  privacy::Conversion conversion = privacy::Conversion::kImproved;
  uint64_t rounds = 1;
  uint32_t cohort = 0;     // n, devices asked per round
  uint32_t colluders = 0;  // t, the privacy policy's max_colluders
  uint32_t dropouts = 0;   // D, the round aborts below n - D survivors
  uint32_t dimension = 0;  // d, before padding
  double clip = 1.0;       // C, the L2 clip of each device's update
  uint32_t max_bits = 32;
  double log2_wrap = -40.0;  // per round: P(wrap) <= 2^log2_wrap
  double beta = 0.0;         // the rounding's beta; 0: 1/(8n)
  double mse_slack = 0.1;
};

struct DdgParameters {
  uint32_t bits = 0;
  double gamma = 0;       // grid step
  double sigma = 0;       // each device's noise std, real units
  double sigma_grid = 0;  // sigma/gamma, the discrete Gaussian's
  double beta = 0;
  size_t padded_dimension = 0;  // d'
  double norm_bound = 0;        // D2 on the grid (DdgRoundedNormBound)
  double l1_bound = 0;          // D1 on the grid
  uint32_t honest_devices = 0;  // n_h = n - D - t
  double epsilon = 0;           // of all the goal's rounds, at its delta
  double log2_wrap = 0;         // the wrap bound above
  double predicted_mse = 0;     // E ||decoded sum - sum||^2 (above)
};

// The accountant's mechanism for one round of `p`.
privacy::Mechanism DdgRoundMechanism(const DdgParameters& p);

// Fills every field of DdgParameters from (bits, gamma, sigma_grid) and the
// goal, the achieved epsilon included. INVALID_ARGUMENT for a bad goal or
// arguments (sigma_grid < 1/2, gamma <= 0, bits outside 1..32).
host::ErrorOr<DdgParameters> EvaluateDdg(const DdgGoal& goal, uint32_t bits,
                                         double gamma, double sigma_grid);

// The per-round plan the devices run for `p` (sdk/include/edgeadmm/secagg/
// ddg_plan.h): sigma_g^2 rounded up to a rational num/den (den = 1024 for
// sigma_g <= 1000, else 1), so the devices add at least the noise the
// accountant charged (the bound falls as sigma_g grows). INVALID_ARGUMENT
// when the result is not a valid plan.
host::ErrorOr<DdgRoundPlan> PlanFromDdgParameters(const DdgParameters& p,
                                                  const DdgGoal& goal);

// The choice above. INVALID_ARGUMENT for a bad goal (n = 0, t + D >= n,
// d = 0, C, epsilon, delta, rounds, max_bits outside 1..32, beta outside
// [0, 1), log2_wrap >= 0); OUT_OF_RANGE when no gamma meets the wrap goal
// within max_bits, or no sigma_g <= 2^40 meets the target epsilon. The
// answers for the last 16 goals are remembered (ddg_choice_cache.h).
host::ErrorOr<DdgParameters> ChooseDdgParameters(const DdgGoal& goal);

}  // namespace edgeadmm::secure_aggregation
