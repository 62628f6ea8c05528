#include "byte_cursor.h"

#include <cstring>

#include "edgeadmm/byte_order.h"

namespace edgeadmm {
namespace secagg_internal {

void ByteCursor::Put(uint64_t value, size_t bytes) {
  StoreLittleEndian(out_ + at_, value, bytes);
  at_ += bytes;
}

void ByteCursor::PutBytes(const std::byte* p, size_t n) {
  if (n == 0) return;
  std::memcpy(out_ + at_, p, n);
  at_ += n;
}

bool ByteCursor::Take(size_t n) {
  if (n <= size_ - at_) return true;
  ok_ = false;
  at_ = size_;
  return false;
}

uint64_t ByteCursor::Get(size_t bytes) {
  if (!Take(bytes)) return 0;
  const uint64_t value = LoadLittleEndian(in_ + at_, bytes);
  at_ += bytes;
  return value;
}

void ByteCursor::GetBytes(std::byte* p, size_t n) {
  if (!Take(n)) return;
  if (p != nullptr && n != 0) std::memcpy(p, in_ + at_, n);
  at_ += n;
}

}  // namespace secagg_internal
}  // namespace edgeadmm
