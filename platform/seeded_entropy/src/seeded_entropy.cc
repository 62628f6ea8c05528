#include "edgeadmm/seeded_entropy/seeded_entropy.h"

#include "mbedtls/sha256.h"

namespace edgeadmm {

bool SeededEntropy::RefillBlock() {
  unsigned char input[16];
  for (size_t i = 0; i < 8; ++i) {
    input[i] = static_cast<unsigned char>(seed_ >> (8 * i));
    input[8 + i] = static_cast<unsigned char>(counter_ >> (8 * i));
  }
  if (mbedtls_sha256_ret(input, sizeof(input), block_, 0) != 0) return false;
  ++counter_;
  block_used_ = 0;
  return true;
}

Status SeededEntropy::Read(ByteSpan out) {
  for (std::byte& b : out) {
    if (block_used_ == sizeof(block_) && !RefillBlock()) {
      return Status::Unavailable();
    }
    b = static_cast<std::byte>(block_[block_used_++]);
  }
  return Status::Ok();
}

}  // namespace edgeadmm
