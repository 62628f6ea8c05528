#include "edgeadmm/posix/local_port_pool.h"

#include <utility>

namespace edgeadmm::posix {

LocalPortPool::LocalPortPool(std::string address, uint16_t first,
                             uint16_t last)
    : address_(std::move(address)),
      first_(first == 0 ? 1 : first),
      last_(last < first_ ? first_ : last),
      next_(first_),
      held_(static_cast<size_t>(last_ - first_) + 1, false) {}

uint16_t LocalPortPool::Acquire() {
  const size_t size = held_.size();
  for (size_t tried = 0; tried < size; ++tried) {
    const uint32_t port = next_;
    next_ = port == last_ ? first_ : port + 1;
    if (!held_[port - first_]) {
      held_[port - first_] = true;
      ++held_count_;
      return static_cast<uint16_t>(port);
    }
  }
  return 0;
}

void LocalPortPool::Release(uint16_t port) {
  if (port < first_ || port > last_ || !held_[port - first_]) return;
  held_[port - first_] = false;
  --held_count_;
}

}  // namespace edgeadmm::posix
