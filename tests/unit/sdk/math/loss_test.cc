#include "edgeadmm/loss.h"

#include <cmath>
#include <initializer_list>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr Real kH = 0.5;  // smoothed-hinge width used below

Loss MakeLoss(LossKind kind) {
  Loss loss;
  loss.kind = kind;
  loss.smoothing = kH;
  return loss;
}

constexpr LossKind kKinds[] = {LossKind::kLogistic, LossKind::kSquared,
                               LossKind::kSmoothedHinge};
constexpr Real kLabels[] = {-1.0, 1.0};

// Near a kink of the smoothed hinge (z = 1 or z = 1 − h) finite differences
// straddle two pieces; skip those points.
bool NearKink(const Loss& loss, Real t, Real b) {
  if (loss.kind != LossKind::kSmoothedHinge) return false;
  const Real z = b * t;
  // Wider in float, whose finite-difference step is 1e-2 (below).
  const Real window = sizeof(Real) == 4 ? ToReal(2e-2) : ToReal(1e-3);
  return std::fabs(z - 1) < window || std::fabs(z - (1 - kH)) < window;
}

TEST(LossTest, ValidateAcceptsKnownKindsAndRejectsBadWidth) {
  for (LossKind kind : kKinds) EXPECT_TRUE(MakeLoss(kind).Validate().ok());
  Loss bad_kind;
  bad_kind.kind = static_cast<LossKind>(7);
  EXPECT_EQ(bad_kind.Validate(), Status::InvalidArgument());
  Loss hinge = MakeLoss(LossKind::kSmoothedHinge);
  const Real bad_widths[] = {0.0, -1.0, NAN, INFINITY};
  for (Real h : bad_widths) {
    hinge.smoothing = h;
    EXPECT_EQ(hinge.Validate(), Status::InvalidArgument()) << h;
  }
  // The width matters only for the hinge.
  Loss logistic = MakeLoss(LossKind::kLogistic);
  logistic.smoothing = 0;
  EXPECT_TRUE(logistic.Validate().ok());
}

TEST(LossTest, KnownValues) {
  const Loss logistic = MakeLoss(LossKind::kLogistic);
  EXPECT_NEAR(logistic.Value(0, 1), std::log(2.0), 1e-15);
  EXPECT_NEAR(logistic.Value(2, -1), std::log1p(std::exp(2.0)), 1e-14);
  EXPECT_NEAR(logistic.Derivative(0, 1), -0.5, 1e-15);
  EXPECT_NEAR(logistic.Curvature(0, -1), 0.25, 1e-15);
  const Loss squared = MakeLoss(LossKind::kSquared);
  EXPECT_DOUBLE_EQ(squared.Value(3, 1), 2.0);
  EXPECT_DOUBLE_EQ(squared.Derivative(3, 1), 2.0);
  EXPECT_DOUBLE_EQ(squared.Curvature(3, 1), 1.0);
  const Loss hinge = MakeLoss(LossKind::kSmoothedHinge);
  EXPECT_DOUBLE_EQ(hinge.Value(2, 1), 0.0);            // z ≥ 1
  EXPECT_DOUBLE_EQ(hinge.Value(0.75, 1), 0.0625);      // (1−z)²/(2h)
  EXPECT_DOUBLE_EQ(hinge.Value(-1, 1), 2 - kH / 2);    // 1 − z − h/2
  EXPECT_DOUBLE_EQ(hinge.Derivative(-0.75, -1), 0.5);  // −b(1−z)/h
  EXPECT_DOUBLE_EQ(hinge.Curvature(0.75, 1), 1 / kH);
  EXPECT_DOUBLE_EQ(hinge.Curvature(-3, 1), 0.0);
}

TEST(LossTest, LogisticIsStableForLargeMargins) {
  const Loss logistic = MakeLoss(LossKind::kLogistic);
  EXPECT_NEAR(logistic.Value(1000, -1), 1000.0, 1e-12);
  EXPECT_NEAR(logistic.Value(-800, -1), 0.0, 1e-300);
  EXPECT_NEAR(logistic.Value(40, 1), std::exp(-40.0), 1e-30);
  EXPECT_DOUBLE_EQ(logistic.Derivative(1000, -1), 1.0);
  EXPECT_DOUBLE_EQ(logistic.Derivative(-1000, -1), -0.0);
  EXPECT_TRUE(std::isfinite(logistic.Curvature(1e308, 1)));
  EXPECT_EQ(logistic.Curvature(1000, 1), 0.0);
}

TEST(LossTest, DerivativeMatchesFiniteDifferences) {
  // Central differences: h ~ cbrt(epsilon) of the compute type.
  constexpr Real kStep = sizeof(Real) == 4 ? ToReal(1e-2) : ToReal(1e-6);
  for (LossKind kind : kKinds) {
    const Loss loss = MakeLoss(kind);
    for (Real b : kLabels) {
      for (Real t = -4; t <= 4; t += 0.173) {
        if (NearKink(loss, t, b)) continue;
        const Real fd =
            (loss.Value(t + kStep, b) - loss.Value(t - kStep, b)) / (2 * kStep);
        EXPECT_NEAR(loss.Derivative(t, b), fd, 1e-7)
            << "kind " << int(kind) << " t " << t << " b " << b;
        const Real fd2 =
            (loss.Derivative(t + kStep, b) - loss.Derivative(t - kStep, b)) /
            (2 * kStep);
        EXPECT_NEAR(loss.Curvature(t, b), fd2, 1e-6)
            << "kind " << int(kind) << " t " << t << " b " << b;
      }
    }
  }
}

TEST(LossTest, ValueAndDerivativeMatchesTheSeparateCalls) {
  for (LossKind kind : kKinds) {
    const Loss loss = MakeLoss(kind);
    for (Real b : kLabels) {
      for (Real t = -40; t <= 40; t += 0.37) {
        Real derivative = 7;
        const Real value = loss.ValueAndDerivative(t, b, &derivative);
        EXPECT_NEAR(value, loss.Value(t, b), 1e-15 * (1 + std::fabs(value)));
        EXPECT_NEAR(derivative, loss.Derivative(t, b), 1e-16)
            << int(kind) << " " << t;
      }
    }
  }
}

TEST(LossTest, SmoothedHingeIsContinuousWithContinuousDerivative) {
  const Loss hinge = MakeLoss(LossKind::kSmoothedHinge);
  for (Real kink : {Real{1}, 1 - kH}) {
    EXPECT_NEAR(hinge.Value(kink - 1e-12, 1), hinge.Value(kink + 1e-12, 1),
                1e-11);
    EXPECT_NEAR(hinge.Derivative(kink - 1e-12, 1),
                hinge.Derivative(kink + 1e-12, 1), 1e-10);
  }
}

TEST(LossTest, BoundsHoldOnSamples) {
  for (LossKind kind : kKinds) {
    const Loss loss = MakeLoss(kind);
    Real largest_curvature = 0;
    for (Real b : kLabels) {
      for (Real t = -10; t <= 10; t += 0.01) {
        largest_curvature = std::fmax(largest_curvature, loss.Curvature(t, b));
        if (kind != LossKind::kSquared) {
          // |∂ℓ/∂t|·||a|| ≤ L for ||a|| = 3, |b| ≤ 1.
          EXPECT_LE(std::fabs(loss.Derivative(t, b)) * 3,
                    loss.LipschitzBound(3, 1));
        }
      }
    }
    EXPECT_LE(largest_curvature, loss.CurvatureBound()) << int(kind);
    // The bound is attained (t = 0 for logistic; inside the quadratic piece).
    EXPECT_NEAR(largest_curvature, loss.CurvatureBound(), 1e-9) << int(kind);
    EXPECT_DOUBLE_EQ(loss.SmoothnessBound(2), 4 * loss.CurvatureBound());
  }
  EXPECT_DOUBLE_EQ(MakeLoss(LossKind::kLogistic).LipschitzBound(2, 1), 2.0);
  EXPECT_DOUBLE_EQ(MakeLoss(LossKind::kSmoothedHinge).CurvatureBound(), 2.0);
  EXPECT_TRUE(std::isinf(MakeLoss(LossKind::kSquared).LipschitzBound(1, 1)));
}

}  // namespace
}  // namespace edgeadmm
