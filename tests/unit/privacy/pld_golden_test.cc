// PLD accountant against delta(eps) computed independently with mpmath
// (tests/golden/privacy/make_pld_golden.py): the analytic Gaussian (Balle &
// Wang 2018) for T rounds, and direct numerical integration for one and two
// Poisson-subsampled Gaussian rounds, both add/remove directions.
// Pessimism: PLD delta >= exact (up to 1e-10 relative round-off).
// Tightness: PLD delta <= exact * (1 + kGap) + kFloor at the default step 1e-3:
// kGap = 5e-3 (measured worst: 1e-4 for one or two subsampled rounds and
// homogeneous Gaussians, 3.9e-3 for 1100 heterogeneous Gaussian rounds of
// tiny per-round loss, where each round's loss is below one grid step);
// kFloor = 1e-13 for the tail mass (<= 1e-15 per truncation) sent to +inf.
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "edgeadmm/privacy/pld_accountant.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

constexpr double kGap = 5e-3;     // stated relative gap at step 1e-3
constexpr double kFloor = 1e-13;  // absolute: truncated tails

TEST(PldGoldenTest, UpperBoundsTheExactDeltaWithinHalfAPercent) {
  std::ifstream in(EDGEADMM_PLD_GOLDEN_CSV);
  ASSERT_TRUE(in.good()) << "cannot open " << EDGEADMM_PLD_GOLDEN_CSV;
  std::string line;
  int rows = 0, two_mechanisms = 0;
  double worst_gap = 0.0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("kind,", 0) == 0) {
      continue;
    }
    std::istringstream fields(line);
    std::vector<std::string> f;
    std::string field;
    while (std::getline(fields, field, ',')) f.push_back(field);
    ASSERT_EQ(f.size(), 9u) << line;
    PldAccountant accountant;
    ASSERT_TRUE(
        accountant.Compose(std::stod(f[1]), std::stod(f[2]), std::stoull(f[3]))
            .ok());
    if (!f[4].empty()) {
      ++two_mechanisms;
      ASSERT_TRUE(
          accountant
              .Compose(std::stod(f[4]), std::stod(f[5]), std::stoull(f[6]))
              .ok());
    }
    const double eps = std::stod(f[7]);
    const double exact = std::stod(f[8]);
    const auto got = accountant.Delta(eps);
    ASSERT_TRUE(got.ok()) << line;
    EXPECT_GE(got.value(), exact * (1.0 - 1e-10)) << line;
    EXPECT_LE(got.value(), exact * (1.0 + kGap) + kFloor) << line;
    worst_gap = std::max(worst_gap, got.value() / exact - 1.0);
    ++rows;
  }
  EXPECT_GE(rows, 100);
  EXPECT_GE(two_mechanisms, 3);
  std::printf("PLD vs mpmath: %d rows, worst relative gap %.3g\n", rows,
              worst_gap);
}

}  // namespace
}  // namespace edgeadmm::privacy
