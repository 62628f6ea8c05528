#include "device_session_overlay.h"

namespace edgeadmm::secagg_internal {

void ZeroRegion(void* p, size_t bytes) {
  if (bytes != 0) std::memset(p, 0, bytes);
}

}  // namespace edgeadmm::secagg_internal
