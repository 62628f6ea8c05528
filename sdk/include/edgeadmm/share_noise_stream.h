// ShareNoiseStream: reproducible exact grid noise for an ADMM-sharing share
// that is streamed in row blocks (papers 000/003, rigorous mode).
//
// Why: in rigorous mode the released share is g·(r + k), r the share D_m x̃_m
// on the grid g = σ·2^-kNoiseGridBits and k_i ~ N_Z(0, 4^kNoiseGridBits)
// (grid_gaussian.h). A device that streams the share block by block (CoAP
// Block1) never holds the N-vector, so it cannot persist the noisy upload
// before sending it, as the Linux client does with the whole vector
// (docs/sdk.md, "Persisting before send"). A block produced again (a
// retransmission, a resend after a reboot) must carry the same noise: fresh
// noise on a resent row would be a second release of that row, which the
// ledger charged once. So k_i is a function of a per-round secret key K and
// of i only: K (kKeyBytes) is drawn from the device's Drbg once per round
// and persisted with x̃_m before the first block leaves; x̃_m and K then
// determine every block.
//
// Construction: rows are grouped in chunks of kChunkRows. Chunk c's integers
// are the DiscreteGaussianSampler's draws (exact, integer-only: the same on
// every target) read from the byte stream AES-256_K(c ‖ 0) ‖ AES-256_K(c ‖ 1)
// ‖ ... (counter mode; the 16-byte counter block is c and the block number,
// two 64-bit little-endian words). Row i takes draw i − c·kChunkRows of
// chunk c = ⌊i/kChunkRows⌋, so rows [r, r + k) come out the same whatever
// the block boundaries of earlier calls.
//
// Cost: a draw consumes a variable number of bytes (48 on average at this σ,
// discrete_gaussian_sampler.h), so row i cannot be reached by seeking to a
// byte offset: Open at a row inside a chunk draws and drops the chunk's
// earlier rows, at most kChunkRows − 1 draws (about 3 KB of AES output) per
// block that does not start on a chunk boundary.
//
// Privacy: AES-CTR under a uniformly random secret key is a pseudorandom
// generator (the same primitive as the CTR_DRBG behind every other sampler),
// so the integers are computationally indistinguishable from independent
// N_Z(0, 4^kNoiseGridBits) draws: the same assumption as all the SDK's noise
// (docs/privacy.md). A key must never serve two rounds (two shares would
// carry equal noise); NewKey draws a fresh one from the Drbg.
//
// No heap: the AES context, the chunk's block and the sampler's buffer live
// in the object (about 400 bytes on the Cortex-M4F; callers keep it on the
// stack).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "mbedtls/aes.h"

namespace edgeadmm {

class ShareNoiseStream {
 public:
  // AES-256 key bytes.
  static constexpr size_t kKeyBytes = 32;
  // Rows per independently seekable chunk of the noise stream.
  static constexpr size_t kChunkRows = 64;

  // Fills `key` (kKeyBytes) with fresh bytes from `source` (the device's
  // Drbg). INVALID_ARGUMENT for a wrong size; the source's errors.
  static Status NewKey(RandomByteSource& source, ByteSpan key);

  ShareNoiseStream();
  ~ShareNoiseStream();  // wipes the key schedule and unused bytes
  ShareNoiseStream(const ShareNoiseStream&) = delete;
  ShareNoiseStream& operator=(const ShareNoiseStream&) = delete;

  // Positions the stream before row `first_row` under `key`.
  // INVALID_ARGUMENT for a key of the wrong size; INTERNAL if AES refuses
  // the key. The draws of the chunk's rows before first_row are made here.
  Status Open(ConstByteSpan key, size_t first_row);
  // k_i of the next row i (then i + 1): i's integer under the key, k_i ~
  // N_Z(0, 4^kNoiseGridBits). FAILED_PRECONDITION before a successful
  // Open; INTERNAL if AES fails (the stream must then be opened again).
  Result<int64_t> Next();

 private:
  // The chunk's AES-CTR bytes.
  class ChunkBytes final : public RandomByteSource {
   public:
    explicit ChunkBytes(mbedtls_aes_context& aes) : aes_(aes) {}
    ~ChunkBytes();
    void Start(uint64_t chunk);
    Status Generate(ByteSpan out) override;

   private:
    mbedtls_aes_context& aes_;  // non-const: older Mbed TLS takes it so
    uint64_t chunk_ = 0;
    uint64_t next_ = 0;
    unsigned char block_[16] = {};
    size_t used_ = sizeof(block_);
  };

  Status StartChunk(size_t chunk);

  mbedtls_aes_context aes_;
  ChunkBytes bytes_{aes_};
  DiscreteGaussianSampler sampler_{bytes_};
  size_t row_ = 0;
  size_t chunk_ = 0;
  bool open_ = false;
};

}  // namespace edgeadmm
