// ShareNoiseStream: reproducible Gaussian noise for an ADMM-sharing share
// that is streamed in row blocks (papers 000/003, rigorous mode; issue 15).
//
// Why: in rigorous mode the released share is s_m = D_m x̃_m + N(0, σ²I_N).
// A device that streams s_m block by block (CoAP Block1) never holds the
// N-vector, so it cannot persist the noisy upload before sending it, as the
// Linux client does with the whole vector (docs/sdk.md, "Persisting before
// send"). A block produced again (a retransmission, a resend after a reboot)
// must carry the same noise: fresh noise on a resent row would be a second
// release of that row, which the ledger charged once. So the noise of row i
// is a function of a per-round secret key K and of i only: K (kKeyBytes)
// is drawn from the device's Drbg once per round and persisted with x̃_m
// before the first block leaves; x̃_m and K then determine every block.
//
// Construction: rows are grouped in chunks of kChunkRows. Chunk c's noise is
// the GaussianSampler's sequence of standard normals read from the byte
// stream AES-256_K(c ‖ 0) ‖ AES-256_K(c ‖ 1) ‖ ... (counter mode; the 16-byte
// counter block is c and the block number, two 64-bit little-endian words),
// scaled by σ. Row i takes draw i − c·kChunkRows of chunk c = ⌊i/kChunkRows⌋,
// so rows [r, r + k) come out the same whatever the block boundaries of
// earlier calls; a block not aligned to a chunk costs at most kChunkRows − 1
// discarded draws per chunk it touches.
//
// Privacy: AES-CTR under a uniformly random secret key is a pseudorandom
// generator (the same primitive as the CTR_DRBG behind every other sampler),
// so the draws are computationally indistinguishable from independent
// N(0, σ²): the same assumption as all the SDK's noise (docs/privacy.md). A
// key must never serve two rounds (two shares would carry equal noise);
// NewKey draws a fresh one from the Drbg.
//
// No heap: the AES context and the sampler live on the stack of AddNoise
// (about 600 bytes on the Cortex-M4F).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

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

  // out[j] += σ·n_{first_row + j}, where n_i is row i's standard normal under
  // `key` (above). INVALID_ARGUMENT for a key of the wrong size, σ negative
  // or not finite, or first_row + out.size() overflowing; INTERNAL if AES
  // refuses the key (out must then be discarded). σ = 0 draws nothing.
  static Status AddNoise(ConstByteSpan key, Real sigma, size_t first_row,
                         Span<Real> out);
};

}  // namespace edgeadmm
