// Compiled with `pkg-config --cflags --libs edgeadmm-sdk` only
// (check_install.py): 16 bytes from the SDK's DRBG seeded by getrandom.
#include <cstddef>
#include <cstdio>

#include "edgeadmm/drbg.h"
#include "edgeadmm/posix/getrandom_entropy.h"

int main() {
  edgeadmm::GetrandomEntropy entropy;
  edgeadmm::Drbg drbg;
  std::byte bytes[16];
  if (!drbg.Init(entropy, edgeadmm::ConstByteSpan()).ok() ||
      !drbg.Generate(edgeadmm::ByteSpan(bytes, sizeof(bytes))).ok()) {
    std::fprintf(stderr, "pkgconfig_main: DRBG failed\n");
    return 1;
  }
  std::printf("pkgconfig_main: drew %zu bytes\n", sizeof(bytes));
  return 0;
}
