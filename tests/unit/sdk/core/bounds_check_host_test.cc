// Host only (death tests fork). The out-of-line panics behind Span's bounds
// checks and Result::value(): each misuse still reaches edgeadmm_panic with its
// message (the posix hook prints it and aborts), and the in-range uses do not.
#include <cstdint>

#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

TEST(BoundsCheckDeathTest, SpanIndexPastTheEndPanics) {
  int32_t values[3] = {1, 2, 3};
  Span<int32_t> span(values, 3);
  EXPECT_EQ(span[2], 3);
  EXPECT_DEATH((void)span[3], "Span access out of range");
}

TEST(BoundsCheckDeathTest, SubspanPastTheEndPanics) {
  int32_t values[4] = {1, 2, 3, 4};
  Span<int32_t> span(values, 4);
  EXPECT_EQ(span.subspan(1, 3).size(), 3u);
  EXPECT_EQ(span.subspan(4, 0).size(), 0u);
  EXPECT_DEATH((void)span.subspan(2, 3), "Span access out of range");
  EXPECT_DEATH((void)span.subspan(5, 0), "Span access out of range");
  EXPECT_DEATH((void)span.first(5), "Span access out of range");
}

TEST(BoundsCheckDeathTest, ResultValueOnAnErrorPanics) {
  Result<int> good(7);
  EXPECT_EQ(good.value(), 7);
  Result<int> bad(Status::InvalidArgument());
  EXPECT_DEATH((void)bad.value(), "Result::value\\(\\) on an error");
  EXPECT_DEATH((void)*bad, "Result::value\\(\\) on an error");
}

}  // namespace
}  // namespace edgeadmm
