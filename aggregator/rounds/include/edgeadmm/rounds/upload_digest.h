// UploadDigest: the SHA-256 of an accepted upload's payload, kept in
// uploads.digest and compared when a retransmission arrives after its round
// committed.
#pragma once

#include <cstdint>
#include <vector>

namespace edgeadmm::rounds {

// SHA-256 of `payload` (32 bytes; empty if the library fails). OpenSSL's
// assembly (SHA-NI/AVX2) rather than Mbed TLS's portable C: hashing the 100
// payloads of a round was a quarter of the bookkeeping instructions once the
// statement cache was in (docs/aggregator.md, "Benchmark").
std::vector<uint8_t> UploadDigest(const std::vector<uint8_t>& payload);

}  // namespace edgeadmm::rounds
