// AdmmSharingServer (paper 000 eqs. 7, 8): the z-update against the numpy
// reference (tests/unit/sdk/steps/admm_sharing_reference.py, bisection) and
// against an independent bisection here, the y-update, the broadcast
// v = Σ shares − z, and Lemma 2's invariant y = ∇l(z) after every round.
#include "edgeadmm/algorithms/admm_sharing_server.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace edgeadmm::algorithms {
namespace {

constexpr size_t kN = 9;
constexpr double kRho = 0.7;

// Root of φ'(z) = −cY/(1+e^{Yz}) − y + ρ(z − s) by plain bisection on a
// wide bracket (not the unit's bracket or Newton).
double Bisect(double label, double y, double s, double rho, double c) {
  double lo = -1e7, hi = 1e7;
  for (int k = 0; k < 400; ++k) {
    const double mid = 0.5 * (lo + hi);
    const double g =
        -c * label / (1 + std::exp(label * mid)) - y + rho * (mid - s);
    (g > 0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST(AdmmSharingServerTest, ScalarZMatchesBisectionOverAGrid) {
  int worst_iterations = 0;
  double worst = 0;
  for (double label : {-1.0, 1.0}) {
    for (double c : {1.0, 1e-3, 3e-5}) {
      for (double rho : {1e-4, 1e-2, 1.0, 50.0}) {
        for (double s : {-30.0, -1.0, 0.0, 0.3, 8.0}) {
          for (double yf : {-1.0, -0.2, 0.0, 0.9}) {
            const double y = yf * c;
            const ScalarZReport r =
                AdmmSharingServer::SolveZ(label, y, s, rho, c);
            const double ref = Bisect(label, y, s, rho, c);
            // |z − z*| ≤ |φ'(z)|/ρ ≤ 1e-12·max(c,|y|)/ρ, plus the
            // bisection's own rounding.
            const double tol = 1e-12 * c / rho + 1e-12 * (1 + std::abs(ref));
            EXPECT_NEAR(r.z, ref, tol)
                << label << " " << c << " " << rho << " " << s << " " << y;
            worst = std::max(worst, std::abs(r.z - ref));
            worst_iterations = std::max(worst_iterations, r.iterations);
          }
        }
      }
    }
  }
  std::printf("z-update: max |z − z_bisection| %.3e, max Newton steps %d\n",
              worst, worst_iterations);
  // ρ ≪ c (ρ = 1e-4, c = 1) takes bisection steps over a 2c/ρ bracket.
  EXPECT_LE(worst_iterations, 60);
}

TEST(AdmmSharingServerTest, RoundMatchesNumpyReferenceAndLemma2) {
  // Inputs as in admm_sharing_reference.py.
  std::vector<double> labels(kN), s1(kN), s2(kN), yt(kN);
  const double c = 1.0 / kN;
  for (size_t i = 0; i < kN; ++i) {
    labels[i] = (i % 3) != 0 ? 1.0 : -1.0;
    s1[i] = 0.5 * std::sin(0.5 + double(i));
    s2[i] = 0.3 * std::cos(0.25 + 2 * double(i));
    yt[i] = c * 0.5 * std::sin(7.0 + double(i));
  }
  const double golden_z[kN] = {
      0.48431154872425797,   0.45059668146413434,  0.26695185756481077,
      0.0018292638022655502, -0.58202313936659977, -0.50006787002621045,
      0.33353845924875858,   0.57113895172255669,  0.26284994650025684};
  const double golden_y[kN] = {
      0.068751718448103058, -0.043246545450617881, -0.048183951338559454,
      0.055606368424782601, -0.071281421966169753, -0.06916392008637709,
      0.064735565397851483, -0.04010822880468818,  -0.048295917525064083};
  AdmmSharingServer server;
  ASSERT_TRUE(server.Init(labels, kRho, c).ok());
  // Bring y to the reference's y^t: a first round from y = 0 with shares
  // that make y = yt is not needed: solve eq. (7)/(8) per entry directly.
  for (size_t i = 0; i < kN; ++i) {
    const ScalarZReport r =
        AdmmSharingServer::SolveZ(labels[i], yt[i], s1[i] + s2[i], kRho, c);
    EXPECT_NEAR(r.z, golden_z[i], 1e-13) << i;
    EXPECT_NEAR(yt[i] + kRho * (s1[i] + s2[i] - r.z), golden_y[i], 1e-14) << i;
  }
  // Full rounds from y = z = 0: y = y + ρ(s − z), v = s − z, y = ∇l(z).
  double worst_lemma2 = 0;
  for (int t = 0; t < 5; ++t) {
    std::vector<double> a(kN), b(kN);
    for (size_t i = 0; i < kN; ++i) {
      a[i] = s1[i] * (1 + 0.3 * t);
      b[i] = s2[i] - 0.1 * t;
    }
    const std::vector<double> y_before = server.y();
    SharingRoundReport report;
    ASSERT_TRUE(server.ApplyRound({a, b}, &report).ok());
    const std::vector<double> grad = server.LossGradient(server.z());
    for (size_t i = 0; i < kN; ++i) {
      const double s = a[i] + b[i];
      EXPECT_EQ(server.v()[i], s - server.z()[i]);
      EXPECT_NEAR(server.y()[i], y_before[i] + kRho * (s - server.z()[i]),
                  1e-15);
      // Lemma 2: y^{t+1} = ∇l(z^{t+1}).
      EXPECT_NEAR(server.y()[i], grad[i], 2e-12 * c) << t << " " << i;
      worst_lemma2 = std::max(worst_lemma2, std::abs(server.y()[i] - grad[i]));
    }
    EXPECT_LE(report.max_abs_gradient,
              1e-12 * c);  // the stopping rule (|y| ≤ c)
  }
  std::printf("Lemma 2: max |y − ∇l(z)| over 5 rounds %.3e (c = %.3e)\n",
              worst_lemma2, c);
}

TEST(AdmmSharingServerTest, RefusesBadInput) {
  AdmmSharingServer server;
  EXPECT_EQ(server.Init({1, 0.5}, 1, 1), Status::InvalidArgument());
  EXPECT_EQ(server.Init({1, -1}, 0, 1), Status::InvalidArgument());
  EXPECT_EQ(server.Init({1, -1}, 1, -1), Status::InvalidArgument());
  ASSERT_TRUE(server.Init({1, -1}, 1, 1).ok());
  EXPECT_EQ(server.ApplyRound({}, nullptr), Status::InvalidArgument());
  EXPECT_EQ(server.ApplyRound({{1, 2, 3}}, nullptr), Status::InvalidArgument());
  EXPECT_EQ(server.ApplyRound({{1, NAN}}, nullptr), Status::InvalidArgument());
  EXPECT_EQ(server.z()[0], 0);
}

}  // namespace
}  // namespace edgeadmm::algorithms
