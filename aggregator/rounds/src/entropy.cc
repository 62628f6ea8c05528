#include "edgeadmm/rounds/entropy.h"

#include <mbedtls/sha256.h>

#include <algorithm>
#include <cstring>

#include "edgeadmm/registry/secure_random.h"

namespace edgeadmm::rounds {

Status KernelEntropy::Read(ByteSpan out) {
  return registry::FillSecureRandom(reinterpret_cast<uint8_t*>(out.data()),
                                    out.size());
}

Status SeededEntropy::Read(ByteSpan out) {
  size_t done = 0;
  while (done < out.size()) {
    unsigned char input[16];
    for (int i = 0; i < 8; ++i) {
      input[i] = static_cast<unsigned char>(seed_ >> (8 * i));
      input[8 + i] = static_cast<unsigned char>(counter_ >> (8 * i));
    }
    ++counter_;
    unsigned char block[32];
    if (mbedtls_sha256_ret(input, sizeof(input), block, 0) != 0) {
      return Status::Internal();
    }
    const size_t take = std::min(sizeof(block), out.size() - done);
    std::memcpy(out.data() + done, block, take);
    done += take;
  }
  return Status::Ok();
}

}  // namespace edgeadmm::rounds
