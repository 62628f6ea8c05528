#include "edgeadmm/rounds/upload_digest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace edgeadmm::rounds {
namespace {

std::string Hex(const std::vector<uint8_t>& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// FIPS 180-2 test vectors.
TEST(UploadDigestTest, IsSha256) {
  EXPECT_EQ(Hex(UploadDigest({})),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hex(UploadDigest({'a', 'b', 'c'})),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // More than one block, as a 492-byte payload is.
  const std::string million_a(1000000, 'a');
  EXPECT_EQ(Hex(UploadDigest(
                std::vector<uint8_t>(million_a.begin(), million_a.end()))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace edgeadmm::rounds
