#include "edgeadmm/linear_model.h"

#include <cmath>

#include "gtest/gtest.h"
#include "math_test_support.h"

namespace edgeadmm {
namespace {

using math_testing::DotInOrder;
using math_testing::FillVector;
using math_testing::SyntheticData;

constexpr size_t kM = 17;
constexpr size_t kP = 6;

SyntheticData<kM, kP> g_data;

Loss MakeLoss(LossKind kind) {
  Loss loss;
  loss.kind = kind;
  loss.smoothing = 0.7;
  return loss;
}

constexpr LossKind kKinds[] = {LossKind::kLogistic, LossKind::kSquared,
                               LossKind::kSmoothedHinge};

TEST(LinearModelTest, ObjectiveIsTheMeanRecordLoss) {
  for (LossKind kind : kKinds) {
    const DatasetView data =
        g_data.Fill(11, kM, kP, kind == LossKind::kSquared);
    const Loss loss = MakeLoss(kind);
    Real w[kP];
    FillVector(5, 1.0, w, kP);
    Real expected = 0;
    for (size_t j = 0; j < kM; ++j) {
      Real t = 0;
      for (size_t i = 0; i < kP; ++i) t += g_data.features[j * kP + i] * w[i];
      expected += loss.Value(t, g_data.labels[j]);
    }
    expected /= kM;
    Real margins[kM];
    EXPECT_NEAR(LocalObjective(data, loss, w, margins), expected, 1e-14);
    Real t0 = 0;
    for (size_t i = 0; i < kP; ++i) t0 += g_data.features[i] * w[i];
    EXPECT_NEAR(margins[0], t0, 1e-15);  // margins = A·w
  }
}

TEST(LinearModelTest, GradientMatchesFiniteDifferences) {
  // Central differences: h ~ cbrt(epsilon) of the compute type.
  constexpr Real kStep = sizeof(Real) == 4 ? ToReal(1e-2) : ToReal(1e-6);
  for (LossKind kind : kKinds) {
    const DatasetView data =
        g_data.Fill(21, kM, kP, kind == LossKind::kSquared);
    const Loss loss = MakeLoss(kind);
    Real w[kP];
    FillVector(9, 0.8, w, kP);
    Real margins[kM];
    Real grad[kP];
    const Real value = LocalLossAndDerivatives(data, loss, w, margins, margins);
    EXPECT_NEAR(value, LocalObjective(data, loss, w, margins), 1e-15);
    LocalGradient(data, loss, w, margins, grad);
    for (size_t i = 0; i < kP; ++i) {
      Real plus[kP];
      Real minus[kP];
      for (size_t k = 0; k < kP; ++k) plus[k] = minus[k] = w[k];
      plus[i] += kStep;
      minus[i] -= kStep;
      const Real fd = (LocalObjective(data, loss, plus, margins) -
                       LocalObjective(data, loss, minus, margins)) /
                      (2 * kStep);
      EXPECT_NEAR(grad[i], fd, 1e-7) << "kind " << int(kind) << " i " << i;
    }
  }
}

TEST(LinearModelTest, LossAndDerivativesKeepsMarginsWhenNotAliased) {
  const DatasetView data = g_data.Fill(31, kM, kP, false);
  const Loss loss = MakeLoss(LossKind::kLogistic);
  Real w[kP] = {0.5, -0.25, 1.0, 0.0, 0.1, -1.0};
  Real margins[kM];
  Real derivatives[kM];
  const Real value =
      LocalLossAndDerivatives(data, loss, w, margins, derivatives);
  Real scratch[kM];
  EXPECT_NEAR(value, LocalObjective(data, loss, w, scratch), 1e-15);
  for (size_t j = 0; j < kM; ++j) {
    EXPECT_DOUBLE_EQ(margins[j], scratch[j]);
    EXPECT_DOUBLE_EQ(derivatives[j],
                     loss.Derivative(margins[j], g_data.labels[j]));
  }
}

// The gradient's sums in their documented order (sdk/src/math/vector_ops.cc):
// each margin as Dot sums (four partial sums, (s0 + s1) + (s2 + s3), then
// the tail: math_testing::DotInOrder), each gradient entry adding d_j·a_ji
// for j = 0, 1, ... and then scaled by 1/m. x86-64 hosts run four-row SSE2
// or AVX kernels for speed: they
// must give the same bits as this order (row counts and dimensions that are
// and are not multiples of 4). Targets that may fuse multiply-adds compare
// to a few ulps.
SyntheticData<17, 11> g_order_data;

TEST(LinearModelTest, GradientSumsInTheDocumentedOrder) {
  constexpr size_t kShapes[][2] = {{17, 11}, {16, 8}, {5, 3}, {3, 9}};
  for (const auto& shape : kShapes) {
    const size_t m = shape[0];
    const size_t p = shape[1];
    const DatasetView data = g_order_data.Fill(41 + m, m, p, false);
    const Loss loss = MakeLoss(LossKind::kLogistic);
    Real w[11];
    FillVector(43 + p, 0.8, w, p);
    Real margins[17];
    Real grad[11];
    LocalGradient(data, loss, Span<const Real>(w, p), Span<Real>(margins, m),
                  Span<Real>(grad, p));
    Real expected[11] = {};
    for (size_t j = 0; j < m; ++j) {
      const Real* row = g_order_data.features + j * p;
      Real d = 0;
      loss.ValueAndDerivative(DotInOrder(row, w, p), g_order_data.labels[j],
                              &d);
      for (size_t i = 0; i < p; ++i) expected[i] += d * row[i];
    }
    for (size_t i = 0; i < p; ++i) {
      expected[i] *= 1 / static_cast<Real>(m);
#if defined(__x86_64__)
      EXPECT_EQ(grad[i], expected[i]) << "m " << m << " p " << p << " i " << i;
#else
      EXPECT_NEAR(grad[i], expected[i], 1e-5) << "m " << m << " p " << p;
#endif
    }
  }
}

}  // namespace
}  // namespace edgeadmm
