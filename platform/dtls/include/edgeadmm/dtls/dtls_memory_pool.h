// The static memory pool of Mbed TLS on bare metal (MBEDTLS_MEMORY_BUFFER_
// ALLOC_C): every mbedtls_calloc of a DTLS session (record buffers,
// handshake, transform and session state) is served from one array in .bss,
// counted as RAM; the libc heap is never used. Its size is
// EDGEADMM_DTLS_POOL_BYTES (CMake cache variable).
#pragma once

#include <cstddef>

#include "edgeadmm/status.h"

namespace edgeadmm::dtls {

// Hands the pool to Mbed TLS (once, before the first DtlsPskLink::Send);
// later calls do nothing. Marks the pool so that the high-water mark can be
// measured.
void StartDtlsMemoryPool();

// Bytes of the pool.
size_t DtlsPoolBytes();

// The highest pool offset Mbed TLS has written since StartDtlsMemoryPool():
// the smallest pool that would have served the same allocations (the
// allocator is first-fit from the start, headers included).
size_t DtlsPoolHighWater();

}  // namespace edgeadmm::dtls
