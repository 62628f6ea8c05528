#include "edgeadmm/wire/vector_field.h"

#include <gtest/gtest.h>

#include <cmath>

namespace edgeadmm::wire {
namespace {

TEST(VectorFieldTest, Float32IsLittleEndianIeee) {
  uint8_t bytes[4];
  StoreFloat32Le(1.0, bytes);
  EXPECT_EQ(bytes[0], 0x00);
  EXPECT_EQ(bytes[1], 0x00);
  EXPECT_EQ(bytes[2], 0x80);
  EXPECT_EQ(bytes[3], 0x3f);
  StoreFloat32Le(-2.5, bytes);
  EXPECT_EQ(bytes[3], 0xc0);
  EXPECT_EQ(bytes[2], 0x20);
  EXPECT_EQ(LoadFloat32Le(bytes), -2.5f);
  const uint8_t nan_bytes[4] = {0x00, 0x00, 0xc0, 0x7f};
  EXPECT_TRUE(std::isnan(LoadFloat32Le(nan_bytes)));
}

}  // namespace
}  // namespace edgeadmm::wire
