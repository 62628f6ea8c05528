// byte_order.h: little- and big-endian fields of 1..8 bytes, the bytes
// checked one by one against the layout the records and nonces document.
#include "edgeadmm/byte_order.h"

#include <array>
#include <cstdint>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr uint64_t kValue = 0x0102030405060708ull;

TEST(ByteOrderTest, LittleEndianStoresLeastSignificantFirst) {
  std::array<std::byte, 9> out{};
  out.fill(std::byte{0xEE});
  StoreLittleEndian(out.data(), kValue, 8);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(out[i], static_cast<std::byte>(8 - i)) << "byte " << i;
  }
  EXPECT_EQ(out[8], std::byte{0xEE});  // nothing past the field
}

TEST(ByteOrderTest, LittleEndianShortFieldsKeepTheLowBytes) {
  std::array<std::byte, 4> out{};
  out.fill(std::byte{0xEE});
  StoreLittleEndian(out.data(), kValue, 3);
  EXPECT_EQ(out[0], std::byte{0x08});
  EXPECT_EQ(out[1], std::byte{0x07});
  EXPECT_EQ(out[2], std::byte{0x06});
  EXPECT_EQ(out[3], std::byte{0xEE});
  EXPECT_EQ(LoadLittleEndian(out.data(), 3), 0x060708u);
  StoreLittleEndian(out.data(), kValue, 0);  // a zero-width field: no write
  EXPECT_EQ(out[0], std::byte{0x08});
  EXPECT_EQ(LoadLittleEndian(out.data(), 0), 0u);
}

TEST(ByteOrderTest, LittleEndianRoundTripsEveryWidth) {
  for (size_t bytes = 1; bytes <= 8; ++bytes) {
    const uint64_t mask =
        bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    for (uint64_t v : {uint64_t{0}, kValue, ~uint64_t{0}, uint64_t{0x80}}) {
      std::array<std::byte, 8> out{};
      StoreLittleEndian(out.data(), v, bytes);
      EXPECT_EQ(LoadLittleEndian(out.data(), bytes), v & mask)
          << bytes << " bytes";
    }
  }
}

TEST(ByteOrderTest, BigEndianStoresMostSignificantFirst) {
  std::array<unsigned char, 9> out{};
  out.fill(0xEE);
  StoreBigEndian(out.data(), kValue, 8);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], i + 1) << "byte " << i;
  EXPECT_EQ(out[8], 0xEE);
  StoreBigEndian(out.data(), kValue, 4);  // the low four bytes
  EXPECT_EQ(out[0], 0x05);
  EXPECT_EQ(out[3], 0x08);
  EXPECT_EQ(out[4], 0x05);  // untouched from the first store
}

}  // namespace
}  // namespace edgeadmm
