#include "edgeadmm/share_noise_stream.h"

#include "edgeadmm/grid_gaussian.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {

ShareNoiseStream::ChunkBytes::~ChunkBytes() {
  mbedtls_platform_zeroize(block_, sizeof(block_));
}

void ShareNoiseStream::ChunkBytes::Start(uint64_t chunk) {
  mbedtls_platform_zeroize(block_, sizeof(block_));
  chunk_ = chunk;
  next_ = 0;
  used_ = sizeof(block_);
}

// AES-256 in counter mode from the 16-byte block (chunk ‖ block number), both
// 64-bit little-endian: the byte stream of one chunk (share_noise_stream.h).
Status ShareNoiseStream::ChunkBytes::Generate(ByteSpan out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (used_ == sizeof(block_)) {
      unsigned char counter[16];
      for (int b = 0; b < 8; ++b) {
        counter[b] = static_cast<unsigned char>(chunk_ >> (8 * b));
        counter[8 + b] = static_cast<unsigned char>(next_ >> (8 * b));
      }
      ++next_;
      if (mbedtls_aes_crypt_ecb(&aes_, MBEDTLS_AES_ENCRYPT, counter, block_) !=
          0) {
        return Status::Internal();
      }
      used_ = 0;
    }
    out[i] = static_cast<std::byte>(block_[used_]);
    block_[used_++] = 0;  // wiped once consumed
  }
  return Status::Ok();
}

Status ShareNoiseStream::NewKey(RandomByteSource& source, ByteSpan key) {
  if (key.size() != kKeyBytes) return Status::InvalidArgument();
  return source.Generate(key);
}

ShareNoiseStream::ShareNoiseStream() { mbedtls_aes_init(&aes_); }

// mbedtls_aes_free zeroizes the round keys; the members wipe their bytes.
ShareNoiseStream::~ShareNoiseStream() { mbedtls_aes_free(&aes_); }

Status ShareNoiseStream::StartChunk(size_t chunk) {
  bytes_.Start(chunk);
  sampler_.Discard();  // bytes of the previous chunk are not reused
  chunk_ = chunk;
  return Status::Ok();
}

Status ShareNoiseStream::Open(ConstByteSpan key, size_t first_row) {
  open_ = false;
  if (key.size() != kKeyBytes) return Status::InvalidArgument();
  if (mbedtls_aes_setkey_enc(&aes_,
                             reinterpret_cast<const unsigned char*>(key.data()),
                             8 * kKeyBytes) != 0) {
    return Status::Internal();
  }
  EDGEADMM_TRY(StartChunk(first_row / kChunkRows));
  row_ = chunk_ * kChunkRows;
  open_ = true;
  // Row i always takes draw i mod kChunkRows of its chunk: the earlier
  // rows' draws are dropped.
  while (row_ < first_row) {
    const Result<int64_t> dropped = Next();
    if (!dropped.ok()) {
      open_ = false;
      return dropped.status();
    }
  }
  return Status::Ok();
}

Result<int64_t> ShareNoiseStream::Next() {
  if (!open_) return Status::FailedPrecondition();
  if (row_ / kChunkRows != chunk_) EDGEADMM_TRY(StartChunk(row_ / kChunkRows));
  EDGEADMM_TRY_ASSIGN(const DiscreteGaussian noise, GridNoise());
  const Result<int64_t> k = sampler_.Sample(noise);
  if (!k.ok()) {
    open_ = false;
    return k.status();
  }
  ++row_;
  return k;
}

}  // namespace edgeadmm
