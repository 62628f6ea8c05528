// The SecAgg+ masked input and the self-seed commitment (see
// masked_input.h).
#include "edgeadmm/secagg/masked_input.h"

#include "edgeadmm/byte_order.h"
#include "edgeadmm/result.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/mask_prg.h"
#include "mbedtls/platform_util.h"
#include "mbedtls/sha256.h"

namespace edgeadmm {
namespace {

constexpr char kCommitLabel[] = "EdgeADMM SecAgg+ self seed v1";

void Zero(Span<uint32_t> values) {
  for (uint32_t& v : values) v = 0;
}

uint32_t ModulusMask(uint32_t bits) {
  return bits >= 32 ? 0xFFFFFFFFu : (uint32_t{1} << bits) - 1;
}

bool ValidParams(const MaskInputParams& p, Span<const uint32_t> values) {
  if (p.bits < 1 || p.bits > 32 || p.random == nullptr ||
      p.self_seed.size() != kMaskSeedBytes ||
      p.mask_private.size() != kX25519KeyBytes ||
      p.mask_public.size() != kX25519KeyBytes) {
    return false;
  }
  const uint32_t mask = ModulusMask(p.bits);
  for (uint32_t v : values) {
    if ((v & ~mask) != 0) return false;
  }
  for (size_t a = 0; a < p.neighbours.size(); ++a) {
    if (p.neighbours[a].index == p.own_index) return false;
    for (size_t b = a + 1; b < p.neighbours.size(); ++b) {
      if (p.neighbours[a].index == p.neighbours[b].index) return false;
    }
  }
  return true;
}

Status ApplyMasks(const MaskInputParams& p, Span<uint32_t> values) {
  EDGEADMM_TRY(ApplyMask(p.self_seed, {p.round_id, MaskPurpose::kSelf},
                         MaskSign::kAdd, values));
  std::byte seed[kMaskSeedBytes];
  Status status = Status::Ok();
  for (const SecAggPeerKey& peer : p.neighbours) {
    status = DerivePairwiseKey(p.mask_private, p.mask_public, peer.mask_public,
                               PairwiseKeyPurpose::kMaskSeed, *p.random,
                               ByteSpan(seed, sizeof(seed)));
    if (!status.ok()) break;
    const MaskSign sign = PairwiseMaskSign(p.own_index, peer.index) > 0
                              ? MaskSign::kAdd
                              : MaskSign::kSubtract;
    status = ApplyMask(ConstByteSpan(seed, sizeof(seed)),
                       {p.round_id, MaskPurpose::kPairwise}, sign, values);
    if (!status.ok()) break;
  }
  mbedtls_platform_zeroize(seed, sizeof(seed));
  return status;
}

}  // namespace

Status MaskInput(const MaskInputParams& params, Span<uint32_t> values) {
  if (!ValidParams(params, values)) {
    Zero(values);
    return Status::InvalidArgument();
  }
  const Status status = ApplyMasks(params, values);
  if (!status.ok()) {
    Zero(values);
    return status;
  }
  const uint32_t mask = ModulusMask(params.bits);
  for (uint32_t& v : values) v &= mask;
  return Status::Ok();
}

Status CommitSelfSeed(uint64_t round_id, uint32_t device,
                      ConstByteSpan self_seed, ByteSpan out) {
  if (self_seed.size() != kMaskSeedBytes ||
      out.size() != kSelfSeedCommitmentBytes) {
    return Status::InvalidArgument();
  }
  unsigned char label[12];
  StoreBigEndian(label, round_id, 8);
  StoreBigEndian(label + 8, device, 4);
  mbedtls_sha256_context sha;
  mbedtls_sha256_init(&sha);
  int rc = mbedtls_sha256_starts_ret(&sha, 0);
  if (rc == 0) {
    rc = mbedtls_sha256_update_ret(
        &sha, reinterpret_cast<const unsigned char*>(kCommitLabel),
        sizeof(kCommitLabel) - 1);
  }
  if (rc == 0) rc = mbedtls_sha256_update_ret(&sha, label, sizeof(label));
  if (rc == 0) {
    rc = mbedtls_sha256_update_ret(
        &sha, reinterpret_cast<const unsigned char*>(self_seed.data()),
        self_seed.size());
  }
  if (rc == 0) {
    rc = mbedtls_sha256_finish_ret(
        &sha, reinterpret_cast<unsigned char*>(out.data()));
  }
  mbedtls_sha256_free(&sha);
  return rc == 0 ? Status::Ok() : Status::Internal();
}

}  // namespace edgeadmm
