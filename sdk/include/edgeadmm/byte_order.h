// Unsigned integers of 1..8 bytes in byte arrays: little-endian for the
// SDK's stored records and blobs, big-endian for the secure rounds' nonces,
// labels and counters. One out-of-line copy of each serves every format (on
// a 32-bit MCU an inlined 64-bit shift loop costs about 100 B per use).
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeadmm {

// The low `bytes` bytes of `value` at `out`, least significant first.
void StoreLittleEndian(std::byte* out, uint64_t value, size_t bytes);
// The `bytes` bytes at `in`, least significant first.
uint64_t LoadLittleEndian(const std::byte* in, size_t bytes);
// The low `bytes` bytes of `value` at `out`, most significant first.
void StoreBigEndian(unsigned char* out, uint64_t value, size_t bytes);

}  // namespace edgeadmm
