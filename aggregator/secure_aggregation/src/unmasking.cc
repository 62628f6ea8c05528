// The gateway's unmasking of the SecAgg+ sum (see unmasking.h).
#include "edgeadmm/secure_aggregation/unmasking.h"

#include <cstring>

#include "edgeadmm/result.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/mask_prg.h"
#include "edgeadmm/secagg/masked_input.h"

namespace edgeadmm::secure_aggregation {
namespace {

constexpr int32_t kAbsent = -1;

bool SameBytes(ConstByteSpan a, ConstByteSpan b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

// Where each device of the graph is: an index into survivors (>= 0) or
// dropped (encoded as -2 - i), or kAbsent. False for a bad index or a
// device listed twice.
bool IndexDevices(const UnmaskRequest& r, std::vector<int32_t>& where) {
  where.assign(r.graph->devices(), kAbsent);
  for (size_t i = 0; i < r.survivors.size(); ++i) {
    const uint32_t d = r.survivors[i].index;
    if (d >= where.size() || where[d] != kAbsent) return false;
    where[d] = static_cast<int32_t>(i);
  }
  for (size_t i = 0; i < r.dropped.size(); ++i) {
    const uint32_t d = r.dropped[i].index;
    if (d >= where.size() || where[d] != kAbsent) return false;
    where[d] = -2 - static_cast<int32_t>(i);
  }
  return true;
}

Status CheckSizes(const UnmaskRequest& r, size_t length) {
  if (r.graph == nullptr || r.bits < 1 || r.bits > 32) {
    return Status::InvalidArgument();
  }
  for (const Survivor& s : r.survivors) {
    if (s.masked.size() != length || s.self_seed.size() != kMaskSeedBytes ||
        s.self_seed_commitment.size() != kSelfSeedCommitmentBytes ||
        s.mask_public.size() != kX25519KeyBytes) {
      return Status::InvalidArgument();
    }
  }
  for (const Dropped& d : r.dropped) {
    if (d.mask_private.size() != kX25519KeyBytes ||
        d.mask_public.size() != kX25519KeyBytes) {
      return Status::InvalidArgument();
    }
  }
  return Status::Ok();
}

// Adds the survivors' masked inputs and removes their self masks.
Status RemoveSelfMasks(const UnmaskRequest& r, Span<uint32_t> sum,
                       uint32_t& failed) {
  for (const Survivor& s : r.survivors) {
    std::byte commitment[kSelfSeedCommitmentBytes];
    EDGEADMM_TRY(CommitSelfSeed(r.round_id, s.index, s.self_seed,
                                ByteSpan(commitment, sizeof(commitment))));
    if (!SameBytes(ConstByteSpan(commitment, sizeof(commitment)),
                   s.self_seed_commitment)) {
      failed = s.index;
      return Status::DataLoss();
    }
    for (size_t w = 0; w < sum.size(); ++w) sum[w] += s.masked[w];
    EDGEADMM_TRY(ApplyMask(s.self_seed, {r.round_id, MaskPurpose::kSelf},
                           MaskSign::kSubtract, sum));
  }
  return Status::Ok();
}

// Removes the pairwise masks the survivors share with dropped device `d`.
Status RemoveDroppedMasks(const UnmaskRequest& r, const Dropped& d,
                          const std::vector<int32_t>& where,
                          RandomByteSource& random, Span<uint32_t> sum,
                          uint32_t& failed) {
  std::byte check[kX25519KeyBytes];
  std::byte base[kX25519KeyBytes] = {std::byte{9}};
  EDGEADMM_TRY(X25519(d.mask_private, ConstByteSpan(base, sizeof(base)), random,
                      ByteSpan(check, sizeof(check))));
  if (!SameBytes(ConstByteSpan(check, sizeof(check)), d.mask_public)) {
    failed = d.index;
    return Status::DataLoss();
  }
  std::vector<uint32_t> neighbours(r.graph->degree());
  EDGEADMM_TRY(r.graph->Neighbours(
      d.index, Span<uint32_t>(neighbours.data(), neighbours.size())));
  std::byte seed[kMaskSeedBytes];
  for (uint32_t j : neighbours) {
    if (where[j] < 0) continue;  // dropped too, or never shared: no mask
    const Survivor& s = r.survivors[where[j]];
    EDGEADMM_TRY(DerivePairwiseKey(d.mask_private, d.mask_public, s.mask_public,
                                   PairwiseKeyPurpose::kMaskSeed, random,
                                   ByteSpan(seed, sizeof(seed))));
    // Survivor j applied sign PairwiseMaskSign(j, d); undo it.
    const MaskSign undo =
        PairwiseMaskSign(j, d.index) > 0 ? MaskSign::kSubtract : MaskSign::kAdd;
    EDGEADMM_TRY(ApplyMask(ConstByteSpan(seed, sizeof(seed)),
                           {r.round_id, MaskPurpose::kPairwise}, undo, sum));
  }
  return Status::Ok();
}

Status Unmask(const UnmaskRequest& r, RandomByteSource& random,
              Span<uint32_t> sum, uint32_t& failed) {
  EDGEADMM_TRY(CheckSizes(r, sum.size()));
  std::vector<int32_t> where;
  if (!IndexDevices(r, where)) return Status::InvalidArgument();
  for (uint32_t& w : sum) w = 0;
  EDGEADMM_TRY(RemoveSelfMasks(r, sum, failed));
  for (const Dropped& d : r.dropped) {
    EDGEADMM_TRY(RemoveDroppedMasks(r, d, where, random, sum, failed));
  }
  const uint32_t mask =
      r.bits >= 32 ? 0xFFFFFFFFu : (uint32_t{1} << r.bits) - 1;
  for (uint32_t& w : sum) w &= mask;
  return Status::Ok();
}

}  // namespace

Status UnmaskSum(const UnmaskRequest& request, RandomByteSource& random,
                 Span<uint32_t> sum, uint32_t* failed_device) {
  uint32_t failed = 0;
  const Status status = Unmask(request, random, sum, failed);
  if (!status.ok()) {
    for (uint32_t& w : sum) w = 0;
    if (failed_device != nullptr && status == Status::DataLoss()) {
      *failed_device = failed;
    }
  }
  return status;
}

}  // namespace edgeadmm::secure_aggregation
