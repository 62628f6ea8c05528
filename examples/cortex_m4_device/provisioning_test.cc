// The provisioning blob's parser (provisioning.h): a blob laid out as the
// header documents (and make_provisioning_blob.py writes) is accepted with
// its fields; erased flash, a flipped bit, a wrong magic or a bad length are
// refused (portable: also runs on the MCU).
#include "provisioning.h"

#include <cstring>

#include "edgeadmm/crc32.h"
#include "gtest/gtest.h"

namespace edgeadmm::device_example {
namespace {

void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// A valid blob: identity "mcu-7", PSK 01 02 03, 10.0.2.2:5684, static.
struct Blob {
  uint8_t b[kBlobBytes];
  Blob() {
    std::memset(b, 0, sizeof(b));
    Put32(b, kBlobMagic);
    b[4] = 1;
    b[6] = 0;
    b[7] = 1;  // 256
    const uint8_t server[4] = {10, 0, 2, 2};
    std::memcpy(b + 8, server, 4);
    b[12] = 5684 & 0xFF;
    b[13] = 5684 >> 8;
    const uint8_t address[4] = {10, 0, 2, 15};
    std::memcpy(b + 16, address, 4);
    b[28] = 5;
    b[29] = 3;
    std::memcpy(b + 32, "mcu-7", 5);
    b[96] = 1;
    b[97] = 2;
    b[98] = 3;
    Seal();
  }
  void Seal() {
    Put32(b + kBlobBytes - 4,
          Crc32(ConstByteSpan(reinterpret_cast<const std::byte*>(b),
                              kBlobBytes - 4)));
  }
  ConstByteSpan span() const {
    return ConstByteSpan(reinterpret_cast<const std::byte*>(b), kBlobBytes);
  }
};

TEST(ProvisioningTest, ParsesAValidBlob) {
  static Blob blob;
  Provisioning p;
  ASSERT_EQ(ParseProvisioning(blob.span(), p), Status::Ok());
  EXPECT_STREQ(p.identity, "mcu-7");
  EXPECT_EQ(p.psk_size, 3u);
  EXPECT_EQ(p.psk[2], 3);
  EXPECT_EQ(p.port, 5684);
  EXPECT_EQ(p.server[0], 10);
  EXPECT_EQ(p.address[3], 15);
  EXPECT_FALSE(p.dhcp);
}

TEST(ProvisioningTest, RefusesErasedCorruptOrMalformedBlobs) {
  static Blob blob;
  Provisioning p;
  std::strcpy(p.identity, "kept");
  std::memset(blob.b, 0xFF, kBlobBytes);
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::NotFound());
  blob = Blob();
  blob.b[100] ^= 0x01;  // a PSK bit
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::DataLoss());
  blob = Blob();
  blob.b[0] ^= 0x01;
  blob.Seal();
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
  blob = Blob();
  blob.b[28] = 65;  // identity longer than 64
  blob.Seal();
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
  blob = Blob();
  blob.b[34] = ' ';  // not printable in an identity
  blob.Seal();
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
  EXPECT_EQ(ParseProvisioning(blob.span().first(kBlobBytes - 1), p),
            Status::InvalidArgument());
  EXPECT_STREQ(p.identity, "kept");  // nothing written on a refusal
}

}  // namespace
}  // namespace edgeadmm::device_example
