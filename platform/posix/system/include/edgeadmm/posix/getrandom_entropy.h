// GetrandomEntropy: the Linux entropy port, getrandom(2) from the kernel
// CSPRNG (blocks only until the kernel pool is initialised at boot).
#pragma once

#include "edgeadmm/entropy_source.h"

namespace edgeadmm {

class GetrandomEntropy final : public EntropySource {
 public:
  // Fills `out` completely (looping over partial reads and EINTR).
  // UNAVAILABLE if getrandom fails (e.g. ENOSYS on an old kernel).
  Status Read(ByteSpan out) override;
};

}  // namespace edgeadmm
