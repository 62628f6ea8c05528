// Float32 slack of the portable tests on a float build of the SDK
// (include/gtest/gtest.h): NEAR and DOUBLE_EQ also accept
// |a − b| ≤ r·max(1, |a|, |b|) with r from this table, per test or per suite
// (the test's entry wins); a test in neither compares as written, exactly.
// u = 2^−24 ≈ 5.96e-8 is float32's unit roundoff. Each r is a bound on what
// float32 adds to the double-written expectation, and each test's measured
// need (the "[ SLACK    ]" line the harness prints; 2026-11-29, ctest
// --preset cortex-m4f -L mcu) is quoted after it. Before this table one r =
// 1e-4 served every test.
#include <cstring>

#include "gtest/gtest.h"

namespace testing::internal {
namespace {

constexpr double kU = 0x1.0p-24;
// A short formula in float32: a libm call (≤ 1 ulp) and a few operations.
constexpr double kFewRoundings = 4 * kU;  // 2.4e-7
// A prox solve stopped at its float32 KKT tolerance 16 ε = 32 u relative to
// max(s, ‖v‖) (edgeadmm/prox_tolerance.h; docs/porting.md, "The exact prox
// in float32").
constexpr double kProx = 32 * kU;  // 1.9e-6
// A sum or mean of n ≤ 17 float32 terms and a division: γ_18 = 18 u.
constexpr double kShortSums = 18 * kU;  // 1.1e-6

struct Entry {
  const char* suite;
  const char* test;  // nullptr: the whole suite
  double relative;
};

constexpr Entry kTable[] = {
    // measured 3.8e-8 (KnownValues), 1.5e-8, 1.2e-25
    {"LossTest", nullptr, kFewRoundings},
    // Central differences at h = 1e-2 of float32 values |ℓ| ≤ 4.1 (t in
    // [−4, 4]), each within 2 u: 2·2u·4.1/(2h) = 4.9e-5 (the h² term is
    // ≤ 2e-6). Measured 2.5e-5.
    {"LossTest", "DerivativeMatchesFiniteDifferences", 5e-5},
    // measured 2.4e-8, 1.9e-8, 1.8e-8
    {"RegularizerTest", nullptr, kFewRoundings},
    // (v − prox)/s at s = 0.01: out's rounding (u/2·|v|, |v| ≤ 3) and the
    // subtraction's, times 1/s = 100: ≤ 2u·3·100 = 3.6e-5. Measured 2.2e-5.
    {"RegularizerTest", "ProxSatisfiesSubdifferentialCondition", 4e-5},
    {"ClipTest", nullptr, kFewRoundings},  // measured 1.2e-8
    // The mean of 17 record losses. Measured 6.0e-8.
    {"LinearModelTest", nullptr, kShortSums},
    // Central differences at h = 1e-2 of that mean (≤ 0.8), within 18 u
    // each: 2·18u·0.8/(2h) = 8.6e-5. Measured 6.9e-6.
    {"LinearModelTest", "GradientMatchesFiniteDifferences", 8.6e-5},
    {"ProxSolverTest", nullptr, kProx},    // measured 9.4e-8
    {"ProxAdmmStepTest", nullptr, kProx},  // measured 3.0e-7, 1.1e-7, 1.4e-8
    {"PenaltyPerturbationStepTest", nullptr, kProx},  // measured 2.0e-7
    {"LocalTrainerTest", nullptr, kProx},  // prox-admm steps; measured 5.7e-8
    // The schedules' closed forms (sqrt, log, a few products). Measured
    // 9.6e-8 (1.6 u).
    {"LinearizedAdmmParamsTest", nullptr, kFewRoundings},
    // One gradient over the test's 12 records. Measured 1.5e-8.
    {"LinearizedAdmmStepTest", nullptr, kShortSums},
    // Gradients over 10 records. Measured 6.7e-9, 1.0e-8.
    {"DpSgdStepTest", nullptr, kShortSums},
    // Accumulations over the test's 9 records and a Cholesky solve of the
    // 4 x 4 system, against numpy in double: no short closed bound; set at
    // 32 u, 6x the measured 3.0e-7 (TwoPassAccumulationMatchesOnePass),
    // 6.0e-8, 1.5e-8.
    {"AdmmSharingStepTest", nullptr, 32 * kU},
};

}  // namespace

double FloatToleranceFor(const char* suite, const char* test) {
  double relative = 0;
  for (const Entry& e : kTable) {
    if (std::strcmp(e.suite, suite) != 0) continue;
    if (e.test == nullptr) {
      relative = e.relative;
    } else if (std::strcmp(e.test, test) == 0) {
      return e.relative;
    }
  }
  return relative;
}

}  // namespace testing::internal
