#include "edgeadmm/host/hex.h"

#include <gtest/gtest.h>

namespace edgeadmm::host {
namespace {

TEST(HexTest, RoundTrip) {
  const std::vector<uint8_t> bytes = {0x00, 0x0f, 0xa5, 0xff};
  EXPECT_EQ(ToHex(bytes), "000fa5ff");
  auto back = FromHex(" 000FA5ff\n");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, bytes);
}

TEST(HexTest, RejectsOddLengthAndNonHex) {
  EXPECT_EQ(FromHex("abc").status(), Status::InvalidArgument());
  EXPECT_EQ(FromHex("zz").status(), Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm::host
