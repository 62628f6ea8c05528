// The nearest-name helper behind "did you mean ...?" (issue 35 item 3).
#include "edgeadmm/host/nearest_name.h"

#include <gtest/gtest.h>

namespace edgeadmm::host {
namespace {

TEST(NearestNameTest, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("rho", "rho"), 0u);
  EXPECT_EQ(EditDistance("rhoo", "rho"), 1u);
  EXPECT_EQ(EditDistance("rh", "rho"), 1u);
  EXPECT_EQ(EditDistance("rgo", "rho"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}

TEST(NearestNameTest, SuggestsOnlyCloseNames) {
  const std::vector<std::string> known = {"step.lambda", "step.gamma",
                                          "step.rho"};
  EXPECT_EQ(NearestName("step.rhoo", known), "step.rho");
  EXPECT_EQ(NearestName("step.gama", known), "step.gamma");
  EXPECT_EQ(NearestName("sampling.q", known), "");
  EXPECT_EQ(NearestName("x", {}), "");
  EXPECT_EQ(DidYouMean("step.lamda", known), "; did you mean step.lambda?");
  EXPECT_EQ(DidYouMean("privacy.clip", known), "");
}

}  // namespace
}  // namespace edgeadmm::host
