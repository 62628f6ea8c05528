#include "edgeadmm/posix/monotonic_clock.h"

#include <time.h>

namespace edgeadmm::posix {

uint64_t MonotonicMs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000u +
         static_cast<uint64_t>(now.tv_nsec) / 1000000u;
}

}  // namespace edgeadmm::posix
