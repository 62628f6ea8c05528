#include "edgeadmm/dtls/dtls_memory_pool.h"

#include <mbedtls/memory_buffer_alloc.h>

#include <cstdint>
#include <cstring>

#include "edgeadmm/assert.h"

namespace edgeadmm::dtls {
namespace {

constexpr size_t kPoolBytes = EDGEADMM_DTLS_POOL_BYTES;
// Mbed TLS writes its first block header at the start at init; the rest is
// painted so that any later use shows.
constexpr size_t kHeaderBytes = 64;
constexpr uint8_t kPaint = 0xa5;

alignas(8) unsigned char pool[kPoolBytes];
bool started = false;

}  // namespace

void StartDtlsMemoryPool() {
  if (started) return;
  started = true;
  mbedtls_memory_buffer_alloc_init(pool, sizeof(pool));
  std::memset(pool + kHeaderBytes, kPaint, sizeof(pool) - kHeaderBytes);
}

size_t DtlsPoolBytes() { return kPoolBytes; }

size_t DtlsPoolHighWater() {
  size_t end = kPoolBytes;
  while (end > kHeaderBytes && pool[end - 1] == kPaint) --end;
  return end;
}

}  // namespace edgeadmm::dtls

// mbedtls_exit (cmake/deps/mbedtls_config.h): the allocator found its pool
// corrupted.
extern "C" void edgeadmm_mbedtls_exit(int) {
  EDGEADMM_PANIC("Mbed TLS pool corrupted");
}
