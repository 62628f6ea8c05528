#include "edgeadmm/linear_model.h"

#include <cmath>

#include "gtest/gtest.h"
#include "math_test_support.h"

namespace edgeadmm {
namespace {

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
    const Real value = LocalGradient(data, loss, w, margins, grad);
    EXPECT_NEAR(value, LocalObjective(data, loss, w, margins), 1e-15);
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

}  // namespace
}  // namespace edgeadmm
