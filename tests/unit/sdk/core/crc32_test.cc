// CRC-32 (IEEE, reflected): check values, chaining, and every length and
// split against a bit-at-a-time reference. Portable: on Linux it tests the
// sliced tables, on the Cortex-M4F the nibble table
// (EDGEADMM_CFG_CRC32_SLICED).
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

// One bit per step, straight from the polynomial: what both table forms
// must equal.
uint32_t BitwiseCrc32(const std::byte* data, size_t size) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= static_cast<uint32_t>(data[i]);
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1u) != 0 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
  }
  return ~crc;
}

TEST(Crc32Test, EqualsTheBitwiseReferenceAtEveryLengthOffsetAndSplit) {
  std::byte data[75];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = std::byte(i * 89 + 7);
  for (size_t offset = 0; offset < 4; ++offset) {
    for (size_t size = 0; offset + size <= sizeof(data); ++size) {
      const std::byte* at = data + offset;
      const uint32_t expected = BitwiseCrc32(at, size);
      ASSERT_EQ(Crc32(ConstByteSpan(at, size)), expected)
          << offset << " " << size;
      for (size_t split = 0; split <= size; split += 3) {
        ASSERT_EQ(Crc32(ConstByteSpan(at + split, size - split),
                        Crc32(ConstByteSpan(at, split))),
                  expected)
            << offset << " " << size << " " << split;
      }
    }
  }
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
