// Checks the Poisson-subsampled Gaussian RDP against reference values
// integrated independently with mpmath (tests/golden/privacy/).
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "edgeadmm/privacy/subsampled_gaussian.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

TEST(GoldenTest, AgreesWithMpmathQuadratureToOneInAMillion) {
  std::ifstream in(EDGEADMM_PRIVACY_GOLDEN_CSV);
  ASSERT_TRUE(in.good()) << "cannot open " << EDGEADMM_PRIVACY_GOLDEN_CSV;
  std::string line;
  int rows = 0, fractional = 0;
  double worst = 0.0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("q,", 0) == 0) continue;
    std::istringstream fields(line);
    std::string q, sigma, alpha, forward, reverse, max, direction;
    std::getline(fields, q, ',');
    std::getline(fields, sigma, ',');
    std::getline(fields, alpha, ',');
    std::getline(fields, forward, ',');
    std::getline(fields, reverse, ',');
    std::getline(fields, max, ',');
    std::getline(fields, direction, ',');
    const double a = std::stod(alpha);
    const double expected = std::stod(max);
    const auto got =
        PoissonSubsampledGaussianRdp(std::stod(q), std::stod(sigma), a);
    ASSERT_TRUE(got.ok()) << line;
    const double relative = std::fabs(got.value() - expected) / expected;
    worst = std::max(worst, relative);
    EXPECT_LE(relative, 1e-6) << line << " library " << got.value();
    // The library reports D(mu1 || mu0): it must be the larger direction
    // (equal up to rounding at q = 1).
    EXPECT_GE(std::stod(forward), std::stod(reverse) * (1 - 1e-15)) << line;
    ++rows;
    if (std::fabs(a - std::round(a)) > 1e-9) ++fractional;
  }
  EXPECT_GE(rows, 300);
  EXPECT_GE(fractional, 150);
  std::printf(
      "golden rows %d (fractional orders %d), worst relative error %.3g\n",
      rows, fractional, worst);
}

}  // namespace
}  // namespace edgeadmm::privacy
