#include "edgeadmm/fake/test_entropy.h"

#include "edgeadmm/assert.h"
#include "mbedtls/sha256.h"

namespace edgeadmm {

void TestEntropy::RefillBlock() {
  unsigned char input[16];
  for (size_t i = 0; i < 8; ++i) {
    input[i] = static_cast<unsigned char>(seed_ >> (8 * i));
    input[8 + i] = static_cast<unsigned char>(counter_ >> (8 * i));
  }
  ++counter_;
  const int error = mbedtls_sha256_ret(input, sizeof(input), block_, 0);
  EDGEADMM_ASSERT(error == 0);
  block_used_ = 0;
}

Status TestEntropy::Read(ByteSpan out) {
  if (fail_after_) {
    if (reads_left_ == 0) {
      for (std::byte& b : out) b = std::byte{0};
      return Status::Unavailable();
    }
    --reads_left_;
  }
  for (std::byte& b : out) {
    if (block_used_ == sizeof(block_)) RefillBlock();
    b = static_cast<std::byte>(block_[block_used_++]);
  }
  ++read_count_;
  bytes_read_ += out.size();
  return Status::Ok();
}

void TestEntropy::FailAfterReads(uint32_t reads) {
  fail_after_ = true;
  reads_left_ = reads;
}

}  // namespace edgeadmm
