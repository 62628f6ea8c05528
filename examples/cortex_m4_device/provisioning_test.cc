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
  ASSERT_EQ(p.gateway_count, 1u);  // a version 1 blob: one gateway
  EXPECT_EQ(p.gateways[0].port, 5684);
  EXPECT_EQ(p.gateways[0].address[0], 10);
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

// Version 2: the further gateways, in order after the first.
void AddGateways(Blob& blob, uint8_t count) {
  blob.b[4] = 2;
  blob.b[160] = count;
  for (uint8_t i = 0; i < count; ++i) {
    uint8_t* e = blob.b + 164 + 6 * i;
    e[0] = 10;
    e[1] = 0;
    e[2] = 2;
    e[3] = static_cast<uint8_t>(3 + i);
    e[4] = static_cast<uint8_t>(i + 1);  // port 256·(i + 1) + 0x34
    e[5] = 0x01;
  }
  blob.Seal();
}

TEST(ProvisioningTest, ParsesFurtherGateways) {
  static Blob blob;
  AddGateways(blob, 3);
  Provisioning p;
  ASSERT_EQ(ParseProvisioning(blob.span(), p), Status::Ok());
  ASSERT_EQ(p.gateway_count, 4u);
  EXPECT_EQ(p.gateways[0].port, 5684);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(p.gateways[i].address[3], 2 + i);
    EXPECT_EQ(p.gateways[i].port, 0x100 + i);
  }
}

TEST(ProvisioningTest, RefusesMalformedGatewayLists) {
  static Blob blob;
  Provisioning p;
  AddGateways(blob, 4);  // more than 3 further gateways
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
  blob = Blob();
  AddGateways(blob, 1);
  blob.b[164 + 4] = 0;
  blob.b[164 + 5] = 0;  // port 0
  blob.Seal();
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
  blob = Blob();
  AddGateways(blob, 1);
  blob.b[164 + 6] = 10;  // an entry beyond the count
  blob.Seal();
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
  blob = Blob();
  AddGateways(blob, 0);
  blob.b[161] = 1;  // a reserved byte
  blob.Seal();
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
  blob = Blob();
  blob.b[4] = 3;  // an unknown version
  blob.Seal();
  EXPECT_EQ(ParseProvisioning(blob.span(), p), Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm::device_example
