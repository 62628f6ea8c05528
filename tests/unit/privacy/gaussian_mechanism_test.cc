#include "edgeadmm/privacy/gaussian_mechanism.h"

#include <cmath>

#include "edgeadmm/privacy/mechanism.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

TEST(GaussianMechanismTest, RdpIsAlphaOverTwoZSquared) {
  EXPECT_DOUBLE_EQ(GaussianRdp(2.0, 1.0).value(), 1.0);
  EXPECT_DOUBLE_EQ(GaussianRdp(10.0, 2.0).value(), 10.0 / 8.0);
  EXPECT_DOUBLE_EQ(GaussianRdp(1.5, 0.5).value(), 3.0);
}

TEST(GaussianMechanismTest, DescriptorUsesNoiseOverSensitivity) {
  Mechanism m;
  m.sensitivity = 4.0;
  m.noise_std = 8.0;  // multiplier 2
  EXPECT_DOUBLE_EQ(RdpAt(m, 3.0).value(), 3.0 / 8.0);
}

TEST(GaussianMechanismTest, RefusesBadInput) {
  EXPECT_EQ(GaussianRdp(1.0, 1.0).error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GaussianRdp(NAN, 1.0).error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GaussianRdp(2.0, 0.0).error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GaussianRdp(2.0, -1.0).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(GaussianRdp(2.0, NAN).error().code(), StatusCode::kInvalidArgument);
  const host::Error e = GaussianRdp(2.0, -1.0).error();
  EXPECT_NE(e.message().find("noise multiplier"), std::string::npos)
      << e.message();

  Mechanism sampled_gaussian;
  sampled_gaussian.sampling_rate = 0.5;  // the plain Gaussian has no sampling
  EXPECT_EQ(ValidateMechanism(sampled_gaussian).code(),
            StatusCode::kInvalidArgument);
  Mechanism bad_noise;
  bad_noise.noise_std = INFINITY;
  EXPECT_EQ(ValidateMechanism(bad_noise).code(), StatusCode::kInvalidArgument);
  Mechanism poisson_replace;
  poisson_replace.kind = MechanismKind::kPoissonSubsampledGaussian;
  poisson_replace.neighbouring = Neighbouring::kReplaceOne;
  poisson_replace.sampling_rate = 0.1;
  EXPECT_EQ(ValidateMechanism(poisson_replace).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm::privacy
