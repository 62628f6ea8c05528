#include "edgeadmm/share_noise_stream.h"

#include <cmath>
#include <cstdint>

#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/result.h"
#include "mbedtls/aes.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace {

// AES-256 in counter mode from the 16-byte block (chunk ‖ block number), both
// 64-bit little-endian: the byte stream of one chunk (share_noise_stream.h).
class ChunkByteSource final : public RandomByteSource {
 public:
  ChunkByteSource(mbedtls_aes_context& aes, uint64_t chunk)
      : aes_(aes), chunk_(chunk) {}
  ~ChunkByteSource() { mbedtls_platform_zeroize(block_, sizeof(block_)); }

  Status Generate(ByteSpan out) override {
    for (size_t i = 0; i < out.size(); ++i) {
      if (used_ == sizeof(block_)) {
        unsigned char counter[16];
        for (int b = 0; b < 8; ++b) {
          counter[b] = static_cast<unsigned char>(chunk_ >> (8 * b));
          counter[8 + b] = static_cast<unsigned char>(next_ >> (8 * b));
        }
        ++next_;
        if (mbedtls_aes_crypt_ecb(&aes_, MBEDTLS_AES_ENCRYPT, counter,
                                  block_) != 0) {
          return Status::Internal();
        }
        used_ = 0;
      }
      out[i] = static_cast<std::byte>(block_[used_]);
      block_[used_++] = 0;  // wiped once consumed
    }
    return Status::Ok();
  }

 private:
  mbedtls_aes_context& aes_;  // non-const: older Mbed TLS takes it so
  const uint64_t chunk_;
  uint64_t next_ = 0;
  unsigned char block_[16] = {};
  size_t used_ = sizeof(block_);
};

// mbedtls_aes_free zeroizes the round keys.
struct AesContext {
  mbedtls_aes_context ctx;
  AesContext() { mbedtls_aes_init(&ctx); }
  ~AesContext() { mbedtls_aes_free(&ctx); }
};

}  // namespace

Status ShareNoiseStream::NewKey(RandomByteSource& source, ByteSpan key) {
  if (key.size() != kKeyBytes) return Status::InvalidArgument();
  return source.Generate(key);
}

Status ShareNoiseStream::AddNoise(ConstByteSpan key, Real sigma,
                                  size_t first_row, Span<Real> out) {
  if (key.size() != kKeyBytes || !std::isfinite(sigma) || sigma < 0 ||
      out.size() > SIZE_MAX - first_row) {
    return Status::InvalidArgument();
  }
  if (sigma == 0 || out.empty()) return Status::Ok();
  AesContext aes;
  if (mbedtls_aes_setkey_enc(&aes.ctx,
                             reinterpret_cast<const unsigned char*>(key.data()),
                             8 * kKeyBytes) != 0) {
    return Status::Internal();
  }
  const size_t end = first_row + out.size();
  size_t row = first_row;
  while (row < end) {
    const size_t chunk = row / kChunkRows;
    const size_t chunk_end =
        (chunk + 1) * kChunkRows < end ? (chunk + 1) * kChunkRows : end;
    ChunkByteSource bytes(aes.ctx, chunk);
    GaussianSampler sampler(bytes);
    // Draws of the chunk's rows before `row` are discarded: row i always
    // takes draw i mod kChunkRows of its chunk.
    for (size_t r = chunk * kChunkRows; r < chunk_end; ++r) {
      // Drawn in double, rounded once to Real (gaussian_sampler.h).
      EDGEADMM_TRY_ASSIGN(const double n, sampler.Standard());
      if (r >= row) {
        Real& x = out[r - first_row];
        x = static_cast<Real>(static_cast<double>(x) +
                              static_cast<double>(sigma) * n);
      }
    }
    row = chunk_end;
  }
  return Status::Ok();
}

}  // namespace edgeadmm
