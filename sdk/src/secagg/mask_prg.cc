// AES-256-CTR mask expansion (see mask_prg.h).
#include "edgeadmm/secagg/mask_prg.h"

#include "edgeadmm/byte_order.h"
#include "mbedtls/aes.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace {

constexpr size_t kBlockBytes = 16;
constexpr size_t kWordsPerBlock = kBlockBytes / sizeof(uint32_t);

bool KnownPurpose(MaskPurpose purpose) {
  return purpose == MaskPurpose::kPairwise || purpose == MaskPurpose::kSelf ||
         purpose == MaskPurpose::kRotation;
}

}  // namespace

Status ApplyMask(ConstByteSpan seed, MaskLabel label, MaskSign sign,
                 Span<uint32_t> values) {
  const uint64_t max_words = uint64_t{1} << 34;
  if (seed.size() != kMaskSeedBytes || !KnownPurpose(label.purpose) ||
      static_cast<uint64_t>(values.size()) > max_words) {
    return Status::InvalidArgument();
  }
  mbedtls_aes_context aes;
  mbedtls_aes_init(&aes);
  if (mbedtls_aes_setkey_enc(
          &aes, reinterpret_cast<const unsigned char*>(seed.data()),
          8 * kMaskSeedBytes) != 0) {
    mbedtls_aes_free(&aes);
    return Status::Internal();
  }
  unsigned char counter[kBlockBytes] = {};
  StoreBigEndian(counter, label.round_id, 8);
  counter[8] = static_cast<unsigned char>(label.purpose);
  unsigned char stream[kBlockBytes];
  Status status = Status::Ok();
  for (size_t w = 0; w < values.size(); ++w) {
    const size_t in_block = w % kWordsPerBlock;
    if (in_block == 0) {
      StoreBigEndian(counter + 12, static_cast<uint32_t>(w / kWordsPerBlock),
                     4);
      if (mbedtls_aes_crypt_ecb(&aes, MBEDTLS_AES_ENCRYPT, counter, stream) !=
          0) {
        status = Status::Internal();
        break;
      }
    }
    const unsigned char* p = stream + 4 * in_block;
    const uint32_t mask = uint32_t{p[0]} | (uint32_t{p[1]} << 8) |
                          (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
    values[w] = sign == MaskSign::kAdd ? values[w] + mask : values[w] - mask;
  }
  mbedtls_platform_zeroize(stream, sizeof(stream));
  mbedtls_aes_free(&aes);  // zeroizes the key schedule
  return status;
}

Status ExpandMask(ConstByteSpan seed, MaskLabel label, Span<uint32_t> out) {
  for (uint32_t& word : out) {
    word = 0;
  }
  const Status status = ApplyMask(seed, label, MaskSign::kAdd, out);
  if (!status.ok()) {
    for (uint32_t& word : out) {
      word = 0;
    }
  }
  return status;
}

}  // namespace edgeadmm
