#include "edgeadmm/rounds/shared_curves.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace edgeadmm::rounds {
namespace {

SharedCurves::Curve Make(std::vector<double> v) {
  return std::make_shared<const std::vector<double>>(std::move(v));
}

TEST(SharedCurvesTest, EqualCurvesShareOneAndUnheldOnesAreForgotten) {
  SharedCurves curves;
  std::vector<SharedCurves::Curve> ledgers(3);
  for (auto& ledger : ledgers) ledger = curves.Hold(Make({0, 0, 0}));
  EXPECT_EQ(curves.size(), 1u);
  EXPECT_EQ(ledgers[0], ledgers[2]);  // one allocation for all three
  const std::vector<double> step = {1, 2, 3};
  // Two ledgers composed apart end on one curve again.
  curves.Replace(ledgers[0], SharedCurves::Composed(ledgers[0], step));
  curves.Replace(ledgers[1], SharedCurves::Composed(ledgers[1], step));
  EXPECT_EQ(ledgers[0], ledgers[1]);
  EXPECT_EQ(curves.Hold(Make({1, 2, 3})), ledgers[0]);  // the held one
  EXPECT_EQ(*ledgers[0], (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(*ledgers[2], (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(curves.size(), 2u);
  // The last ledger on the zero curve moves: the zero curve is forgotten.
  curves.Replace(ledgers[2], SharedCurves::Composed(ledgers[2], step));
  EXPECT_EQ(curves.size(), 1u);
  // A composed curve never applied is not held.
  const SharedCurves::Curve planned = SharedCurves::Composed(ledgers[1], step);
  EXPECT_EQ(curves.size(), 1u);
  EXPECT_EQ(*planned, (std::vector<double>{2, 4, 6}));
  // A curve a planned charge still points at stays whole when its last
  // ledger moves on.
  for (auto& ledger : ledgers) curves.Replace(ledger, Make({9, 9, 9}));
  EXPECT_EQ(curves.size(), 1u);
  EXPECT_EQ(*planned, (std::vector<double>{2, 4, 6}));
}

}  // namespace
}  // namespace edgeadmm::rounds
