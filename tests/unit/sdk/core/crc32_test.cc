// CRC-32 (IEEE, reflected): check values and chaining. Portable.
#include "edgeadmm/crc32.h"

#include <cstring>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

ConstByteSpan Text(const char* s) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(s), std::strlen(s));
}

TEST(Crc32Test, StandardCheckValues) {
  EXPECT_EQ(Crc32(Text("123456789")), 0xCBF43926u);
  EXPECT_EQ(Crc32(Text("")), 0u);
  EXPECT_EQ(Crc32(Text("a")), 0xE8B7BE43u);
  EXPECT_EQ(Crc32(Text("The quick brown fox jumps over the lazy dog")),
            0x414FA339u);
}

TEST(Crc32Test, ChainsOverPieces) {
  EXPECT_EQ(Crc32(Text("56789"), Crc32(Text("1234"))), 0xCBF43926u);
}

TEST(Crc32Test, DetectsEverySingleBitFlip) {
  std::byte data[64];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = std::byte(i * 37);
  const uint32_t reference = Crc32(ConstByteSpan(data, sizeof(data)));
  for (size_t i = 0; i < sizeof(data) * 8; ++i) {
    data[i / 8] ^= std::byte(1u << (i % 8));
    EXPECT_NE(Crc32(ConstByteSpan(data, sizeof(data))), reference) << i;
    data[i / 8] ^= std::byte(1u << (i % 8));
  }
}

}  // namespace
}  // namespace edgeadmm
