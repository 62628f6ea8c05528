#include "edgeadmm/privacy/subsampled_gaussian.h"

#include <cmath>

#include "edgeadmm/privacy/gaussian_mechanism.h"
#include "edgeadmm/privacy/rdp_orders.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

// The digest's closed form (002-004 digest, 1.3.4), summed directly in double
// precision: fine where nothing overflows.
double NaiveBinomialRdp(double q, double z, int alpha) {
  double a = 0.0;
  for (int k = 0; k <= alpha; ++k) {
    const double log_c = std::lgamma(alpha + 1.0) - std::lgamma(k + 1.0) -
                         std::lgamma(alpha - k + 1.0);
    a += std::exp(log_c + (alpha - k) * std::log1p(-q) + k * std::log(q) +
                  (k * k - k) / (2.0 * z * z));
  }
  return std::log(a) / (alpha - 1);
}

TEST(SubsampledGaussianTest, QOneIsThePlainGaussian) {
  for (double z : {0.5, 1.0, 3.0}) {
    for (double alpha : {1.1, 1.5, 2.0, 7.3, 32.0, 1024.0}) {
      const double gaussian = GaussianRdp(alpha, z).value();
      EXPECT_DOUBLE_EQ(PoissonSubsampledGaussianRdp(1.0, z, alpha).value(),
                       gaussian);
      EXPECT_DOUBLE_EQ(
          PoissonSubsampledGaussianRdpQuadrature(1.0, z, alpha).value(),
          gaussian);
    }
  }
  // Just below 1 the quadrature is continuous with the Gaussian.
  EXPECT_NEAR(
      PoissonSubsampledGaussianRdpQuadrature(1.0 - 1e-9, 1.0, 2.5).value(),
      GaussianRdp(2.5, 1.0).value(), 1e-6);
}

TEST(SubsampledGaussianTest, IntegerOrdersEqualTheBinomialClosedForm) {
  for (double q : {0.001, 0.01, 0.1, 0.5, 0.9}) {
    // z < 1/pi exercises the narrow-strip step h = pi z^2 / 8.
    for (double z : {0.15, 0.3, 0.7, 1.0, 2.0, 10.0}) {
      for (int alpha : {2, 3, 5, 10, 20}) {
        const double naive = NaiveBinomialRdp(q, z, alpha);
        const double binomial =
            PoissonSubsampledGaussianRdpBinomial(q, z, alpha).value();
        const double quadrature =
            PoissonSubsampledGaussianRdpQuadrature(q, z, alpha).value();
        // The naive sum loses digits to cancellation when the RDP is tiny.
        EXPECT_NEAR(binomial, naive, 1e-9 * naive + 1e-14)
            << "q=" << q << " z=" << z << " alpha=" << alpha;
        EXPECT_NEAR(quadrature, binomial, 1e-9 * binomial)
            << "q=" << q << " z=" << z << " alpha=" << alpha;
      }
    }
  }
}

TEST(SubsampledGaussianTest, OrderTwoHasAnExactFormEvenForTinyQ) {
  // A_2 = 1 + q^2 (e^{1/z^2} - 1) exactly.
  for (double q : {1e-6, 1e-3, 0.3}) {
    for (double z : {0.5, 1.0, 10.0}) {
      const double exact = std::log1p(q * q * std::expm1(1.0 / (z * z)));
      EXPECT_NEAR(PoissonSubsampledGaussianRdp(q, z, 2.0).value(), exact,
                  1e-12 * exact);
      EXPECT_NEAR(PoissonSubsampledGaussianRdpQuadrature(q, z, 2.0).value(),
                  exact, 1e-9 * exact);
    }
  }
}

TEST(SubsampledGaussianTest, TinyQFollowsTheSecondOrderExpansion) {
  // For q -> 0: eps(alpha) ~ alpha q^2 (e^{1/z^2} - 1) / 2.
  const double q = 1e-6;
  for (double alpha : {1.1, 1.5, 4.5, 10.9}) {
    const double rdp = PoissonSubsampledGaussianRdp(q, 1.0, alpha).value();
    const double leading = alpha * q * q * std::expm1(1.0) / 2.0;
    EXPECT_NEAR(rdp, leading, 1e-4 * leading) << "alpha=" << alpha;
  }
}

TEST(SubsampledGaussianTest, LargeOrdersAndSmallNoiseStayFinite) {
  for (double q : {1e-6, 0.01, 0.5}) {
    for (double z : {0.1, 0.5}) {
      for (double alpha : {10.9, 63.0, 1024.0}) {
        const double rdp = PoissonSubsampledGaussianRdp(q, z, alpha).value();
        EXPECT_TRUE(std::isfinite(rdp));
        EXPECT_GT(rdp, 0.0);
        EXPECT_LE(rdp, GaussianRdp(alpha, z).value() * (1 + 1e-12));
      }
    }
  }
  // With huge orders and tiny noise the sampled mechanism approaches the
  // Gaussian minus log(1/q)/(alpha-1) per order.
  const double rdp = PoissonSubsampledGaussianRdp(0.01, 0.5, 1024.0).value();
  EXPECT_NEAR(rdp, 2048.0 + 1024.0 * std::log(0.01) / 1023.0, 0.1);
}

TEST(SubsampledGaussianTest, MonotoneInRateAndNoise) {
  for (double alpha : {1.3, 2.0, 6.6, 40.0}) {
    double previous = 0.0;
    for (double q : {1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0}) {
      const double rdp = PoissonSubsampledGaussianRdp(q, 1.0, alpha).value();
      EXPECT_GT(rdp, previous) << "alpha=" << alpha << " q=" << q;
      previous = rdp;
    }
    previous = INFINITY;
    for (double z : {0.5, 0.8, 1.0, 2.0, 5.0}) {
      const double rdp = PoissonSubsampledGaussianRdp(0.05, z, alpha).value();
      EXPECT_LT(rdp, previous) << "alpha=" << alpha << " z=" << z;
      previous = rdp;
    }
  }
}

TEST(SubsampledGaussianTest, CurveEqualsThePerOrderValues) {
  const std::vector<double>& orders = OrderGrid::Default().orders();
  for (double q : {1e-6, 0.004, 0.3, 1.0}) {
    for (double z : {0.2, 1.1, 7.0}) {
      const auto curve = PoissonSubsampledGaussianRdpCurve(q, z, orders);
      ASSERT_TRUE(curve.ok());
      ASSERT_EQ(curve->size(), orders.size());
      for (size_t i = 0; i < orders.size(); ++i) {
        const double single =
            PoissonSubsampledGaussianRdp(q, z, orders[i]).value();
        EXPECT_NEAR((*curve)[i], single, 1e-12 * single)
            << "q=" << q << " z=" << z << " alpha=" << orders[i];
      }
    }
  }
  EXPECT_EQ(
      PoissonSubsampledGaussianRdpCurve(0.1, 1.0, {2.0, 1.0}).error().code(),
      StatusCode::kInvalidArgument);
}

TEST(SubsampledGaussianTest, RefusesBadInput) {
  for (double q : {0.0, -0.1, 1.5, double(NAN)}) {
    const auto r = PoissonSubsampledGaussianRdp(q, 1.0, 2.0);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.error().message().find("q"), std::string::npos);
  }
  for (double z : {0.0, -1.0, double(NAN), double(INFINITY)}) {
    EXPECT_EQ(PoissonSubsampledGaussianRdp(0.1, z, 2.0).error().code(),
              StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(PoissonSubsampledGaussianRdp(0.1, 1.0, 1.0).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(PoissonSubsampledGaussianRdpBinomial(0.1, 1.0, 2.5).error().code(),
            StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace edgeadmm::privacy
