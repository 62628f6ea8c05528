#include "edgeadmm/fake/test_entropy.h"

#include "edgeadmm/result.h"

namespace edgeadmm {

Status TestEntropy::Read(ByteSpan out) {
  if (fail_after_) {
    if (reads_left_ == 0) {
      for (std::byte& b : out) b = std::byte{0};
      return Status::Unavailable();
    }
    --reads_left_;
  }
  EDGEADMM_TRY(stream_.Read(out));
  ++read_count_;
  bytes_read_ += out.size();
  return Status::Ok();
}

void TestEntropy::FailAfterReads(uint32_t reads) {
  fail_after_ = true;
  reads_left_ = reads;
}

}  // namespace edgeadmm
