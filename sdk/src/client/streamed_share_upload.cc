#include "edgeadmm/streamed_share_upload.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "edgeadmm/byte_order.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/result.h"
#include "edgeadmm/wire/vector_field.h"
#include "math/vector_ops.h"

namespace edgeadmm::internal {
namespace {

uint64_t Bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

double FromBits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

bool ValidSigma(double s) { return std::isfinite(s) && s >= 0; }

}  // namespace

StatusWithSize WriteStreamedShareRecipe(const StreamedShareRecipe& recipe,
                                        ByteSpan out) {
  if (recipe.key.size() != ShareNoiseStream::kKeyBytes ||
      recipe.prefix.size() > UINT32_MAX) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  const size_t total = StreamedShareRecipeBytes(recipe.prefix.size());
  if (out.size() < total) return StatusWithSize(Status::ResourceExhausted(), 0);
  std::byte* p = out.data();
  StoreLittleEndian(p, recipe.prefix.size(), 4);
  std::memcpy(p + 4, recipe.prefix.data(), recipe.prefix.size());
  p += 4 + recipe.prefix.size();
  StoreLittleEndian(p, recipe.share_rows, 4);
  StoreLittleEndian(p + 4, recipe.score_rows, 4);
  StoreLittleEndian(p + 8, Bits(recipe.share_sigma), 8);
  StoreLittleEndian(p + 16, Bits(recipe.score_sigma), 8);
  std::memcpy(p + 24, recipe.key.data(), ShareNoiseStream::kKeyBytes);
  return StatusWithSize(total);
}

Status ParseStreamedShareRecipe(ConstByteSpan in, StreamedShareRecipe& out) {
  if (in.size() < StreamedShareRecipeBytes(0)) return Status::DataLoss();
  const auto prefix = static_cast<size_t>(LoadLittleEndian(in.data(), 4));
  if (in.size() != StreamedShareRecipeBytes(prefix)) return Status::DataLoss();
  const std::byte* p = in.data() + 4 + prefix;
  StreamedShareRecipe r;
  r.prefix = in.subspan(4, prefix);
  r.share_rows = static_cast<uint32_t>(LoadLittleEndian(p, 4));
  r.score_rows = static_cast<uint32_t>(LoadLittleEndian(p + 4, 4));
  r.share_sigma = FromBits(LoadLittleEndian(p + 8, 8));
  r.score_sigma = FromBits(LoadLittleEndian(p + 16, 8));
  r.key = ConstByteSpan(p + 24, ShareNoiseStream::kKeyBytes);
  if (prefix == 0 || r.share_rows == 0 || !ValidSigma(r.share_sigma) ||
      !ValidSigma(r.score_sigma)) {
    return Status::DataLoss();
  }
  out = r;
  return Status::Ok();
}

Status StreamedShareSource::Bind(const StreamedShareRecipe& recipe,
                                 const DatasetView& data,
                                 const DatasetView& test, Span<const Real> x,
                                 Span<Real> scratch) {
  if (data.samples() != recipe.share_rows || x.size() != data.dim() ||
      scratch.empty() ||
      (recipe.score_rows != 0 &&
       (test.samples() != recipe.score_rows || test.dim() != data.dim()))) {
    return Status::InvalidArgument();
  }
  recipe_ = recipe;
  data_ = data;
  test_ = test;
  x_ = x;
  scratch_ = scratch;
  return Status::Ok();
}

size_t StreamedShareSource::size() const {
  return recipe_.prefix.size() +
         4 * (size_t{recipe_.share_rows} + recipe_.score_rows);
}

Status StreamedShareSource::CheckValues() {
  const size_t total = size_t{recipe_.share_rows} + recipe_.score_rows;
  for (size_t first = 0; first < total; first += scratch_.size()) {
    const size_t n =
        total - first < scratch_.size() ? total - first : scratch_.size();
    EDGEADMM_TRY(Values(first, scratch_.first(n)));
  }
  return Status::Ok();
}

Status StreamedShareSource::Values(size_t first, Span<Real> out) const {
  const size_t n = recipe_.share_rows;
  // Noisy values are g·(r_i + k_i) on the grid of their σ (rows below N:
  // σ, the scores from N: σ_s), k_i row i's draw of the one key; r_i as the
  // step computes it (ClipModel checked those integers). The noisy rows are
  // contiguous, so one stream opened at the first of them serves the batch.
  ShareNoiseStream stream;
  bool opened = false;
  for (size_t j = 0; j < out.size(); ++j) {
    const size_t i = first + j;
    const Real v = Dot(i < n ? data_.Row(i) : test_.Row(i - n), x_);
    const Real sigma =
        static_cast<Real>(i < n ? recipe_.share_sigma : recipe_.score_sigma);
    if (!(sigma > 0)) {
      out[j] = v;
      continue;
    }
    if (!opened) {
      EDGEADMM_TRY(stream.Open(recipe_.key, i));
      opened = true;
    }
    EDGEADMM_TRY_ASSIGN(const int32_t r, GridPoint(v, sigma));
    EDGEADMM_TRY_ASSIGN(const int64_t k, stream.Next());
    out[j] = GridValue(int64_t{r} + k, sigma);
  }
  for (const Real v : out) {
    if (!std::isfinite(v) ||
        std::fabs(v) > static_cast<Real>(std::numeric_limits<float>::max())) {
      return Status::InvalidArgument();
    }
  }
  return Status::Ok();
}

Status StreamedShareSource::Read(size_t offset, ByteSpan out) {
  if (offset > size() || out.size() > size() - offset) {
    return Status::InvalidArgument();
  }
  size_t done = 0;
  const size_t prefix = recipe_.prefix.size();
  if (offset < prefix) {
    done = prefix - offset < out.size() ? prefix - offset : out.size();
    std::memcpy(out.data(), recipe_.prefix.data() + offset, done);
  }
  // The values whose bytes fall in the rest of the range, a batch at a time.
  while (done < out.size()) {
    const size_t byte = offset + done - prefix;  // into the vector's bytes
    const size_t first = byte / 4;
    const size_t last = (byte + (out.size() - done) + 3) / 4;  // exclusive
    const size_t count =
        last - first < scratch_.size() ? last - first : scratch_.size();
    const Span<Real> values = scratch_.first(count);
    EDGEADMM_TRY(Values(first, values));
    for (size_t k = 0; k < count && done < out.size(); ++k) {
      uint8_t bytes[4];
      wire::StoreFloat32Le(values[k], bytes);
      for (size_t b = (k == 0 ? byte % 4 : 0); b < 4 && done < out.size();
           ++b) {
        out[done++] = static_cast<std::byte>(bytes[b]);
      }
    }
  }
  return Status::Ok();
}

}  // namespace edgeadmm::internal
