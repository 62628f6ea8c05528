// The pending upload of a streaming admm-sharing party (papers 000/003;
// docs/sdk.md, "Streaming party"), which never holds its N-value share:
//
//   - a recipe, persisted in the ClientRecord in place of the encoded Update
//     (flag kStreamed): the Update's bytes up to its vector values
//     (wire::EncodeUpdatePrefix), N, K, σ, σ_s and the round's noise key.
//     With x̃_m (in the state blob) and the device's data, it determines
//     every byte of the upload, so a resend (a retransmitted block, a reboot
//     before the receipt) repeats the same release bit for bit.
//   - the BodySource that produces those bytes while they are sent: value i
//     < N is the share row g·(round(D_i x̃_m/g) + k_i) on the grid g of σ,
//     value N + j the partial score of test record j (scoring phase) on the
//     grid of σ_s with k_{N+j}, where k_r is row r's draw of
//     ShareNoiseStream under the key (rows N.. serve the scores, so no draw
//     is used twice; grid_gaussian.h).
//
// Recipe layout (little-endian): prefix size P (4), prefix (P), N (4), K
// (4), σ (8, IEEE binary64), σ_s (8), key (ShareNoiseStream::kKeyBytes).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/real.h"
#include "edgeadmm/share_noise_stream.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/transport.h"

namespace edgeadmm::internal {

struct StreamedShareRecipe {
  ConstByteSpan prefix;     // the Update's bytes before the vector values
  uint32_t share_rows = 0;  // N
  uint32_t score_rows = 0;  // K (0: no scoring phase)
  double share_sigma = 0;   // rigorous noise on each share row (0: none)
  double score_sigma = 0;   // gaussian noise on each score (0: none)
  ConstByteSpan key;        // ShareNoiseStream::kKeyBytes
};

constexpr size_t StreamedShareRecipeBytes(size_t prefix_bytes) {
  return 4 + prefix_bytes + 4 + 4 + 8 + 8 + ShareNoiseStream::kKeyBytes;
}

// Writes `recipe` into `out` (`recipe.prefix` may not alias `out`).
// RESOURCE_EXHAUSTED if it does not fit; INVALID_ARGUMENT for a key of the
// wrong size.
StatusWithSize WriteStreamedShareRecipe(const StreamedShareRecipe& recipe,
                                        ByteSpan out);
// Parses a recipe (views into `in`). DATA_LOSS if malformed.
Status ParseStreamedShareRecipe(ConstByteSpan in, StreamedShareRecipe& out);

class StreamedShareSource final : public BodySource {
 public:
  // `data`: the party's N x p block; `test`: its K x p test block (K =
  // recipe.score_rows); `x`: x̃_m (p); `scratch`: values computed per batch
  // (at least 1). All must outlive the upload. INVALID_ARGUMENT if the
  // shapes disagree with the recipe.
  Status Bind(const StreamedShareRecipe& recipe, const DatasetView& data,
              const DatasetView& test, Span<const Real> x, Span<Real> scratch);

  size_t size() const override;
  // Computes every value once: INVALID_ARGUMENT if one is not a finite
  // float32 (the upload cannot be sent), AES errors.
  Status CheckValues();
  // INVALID_ARGUMENT for a range beyond size() or a value that is not a
  // finite float32 (the upload is then dropped); INTERNAL from AES.
  Status Read(size_t offset, ByteSpan out) override;

 private:
  // Values [first, first + out.size()) of the vector.
  Status Values(size_t first, Span<Real> out) const;

  StreamedShareRecipe recipe_;
  DatasetView data_;
  DatasetView test_;
  Span<const Real> x_;
  Span<Real> scratch_;
};

}  // namespace edgeadmm::internal
