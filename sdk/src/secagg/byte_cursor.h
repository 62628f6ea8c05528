// Little-endian fields into or out of a byte buffer, for both SecAgg+
// codecs of the device: the phase frames (phase_frames.cc) and the
// session's blob (device_session_blob.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"

namespace edgeadmm {
namespace secagg_internal {

class ByteCursor {
 public:
  // Writes into `out`, whose size the caller checked first.
  static ByteCursor Writer(ByteSpan out) {
    return ByteCursor(out.data(), nullptr, out.size());
  }
  // Reads from `in`; a read past its end sets ok() false and yields zeros.
  static ByteCursor Reader(ConstByteSpan in) {
    return ByteCursor(nullptr, in.data(), in.size());
  }

  void Put(uint64_t value, size_t bytes);
  // `p` may be null when n is 0.
  void PutBytes(const std::byte* p, size_t n);
  uint64_t Get(size_t bytes);
  // Copies n bytes into `p`; a null `p` skips them.
  void GetBytes(std::byte* p, size_t n);

  size_t at() const { return at_; }
  bool ok() const { return ok_; }

 private:
  ByteCursor(std::byte* out, const std::byte* in, size_t size)
      : out_(out), in_(in), size_(size) {}
  bool Take(size_t n);

  std::byte* out_;
  const std::byte* in_;
  size_t size_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace secagg_internal
}  // namespace edgeadmm
