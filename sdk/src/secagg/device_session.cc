// The device's SecAgg+ session: the phase steps (see device_session.h);
// the blob is device_session_blob.cc.
#include "edgeadmm/secagg/device_session.h"

#include <cstring>

#include "device_session_overlay.h"
#include "mbedtls/platform_util.h"
#include "mbedtls/sha256.h"

namespace edgeadmm {

using secagg_internal::Begin;
using secagg_internal::View;

namespace {

// mbedtls_platform_zeroize takes (nullptr, 0): an unset buffer is empty.
template <typename T>
void ZeroSpan(Span<T> s) {
  mbedtls_platform_zeroize(s.data(), s.size_bytes());
}

uint32_t EffectiveDegree(const SecAggSessionParams& p) {
  return p.degree < p.devices - 1 ? p.degree : p.devices - 1;
}

// SHA-256 of phase 3's answer: the count in all, then the listed
// survivors, each big-endian.
Status DigestAnswer(const SurvivorAnswer& answer, std::byte* out) {
  mbedtls_sha256_context sha;
  mbedtls_sha256_init(&sha);
  int rc = mbedtls_sha256_starts_ret(&sha, 0);
  for (size_t i = 0; rc == 0 && i <= answer.listed.size(); ++i) {
    const uint32_t v = i == 0 ? answer.survivors : answer.listed[i - 1];
    const unsigned char word[4] = {static_cast<unsigned char>(v >> 24),
                                   static_cast<unsigned char>(v >> 16),
                                   static_cast<unsigned char>(v >> 8),
                                   static_cast<unsigned char>(v)};
    rc = mbedtls_sha256_update_ret(&sha, word, sizeof(word));
  }
  if (rc == 0) {
    rc = mbedtls_sha256_finish_ret(&sha, reinterpret_cast<unsigned char*>(out));
  }
  mbedtls_sha256_free(&sha);
  return rc == 0 ? Status::Ok() : Status::Internal();
}

}  // namespace

SecAggDeviceSession::SecAggDeviceSession(const SecAggSessionBuffers& buffers)
    : buffers_(buffers) {}

SecAggDeviceSession::~SecAggDeviceSession() { Wipe(); }

bool SecAggDeviceSession::ValidRoundParams(const SecAggSessionParams& p) {
  if (p.devices < 2 || p.degree == 0 || p.own_index >= p.devices ||
      p.bits < 1 || p.bits > 32 || p.mask_length < 1 || p.min_survivors < 1 ||
      p.min_survivors > p.devices) {
    return false;
  }
  const bool complete = uint64_t{p.degree} + 1 >= p.devices;
  if (!complete && p.degree % 2 != 0) return false;
  const uint32_t k = EffectiveDegree(p);
  return k <= kSecAggMaxNeighbours && p.threshold >= 2 && p.threshold <= k;
}

bool SecAggDeviceSession::ValidParams(const SecAggSessionParams& p,
                                      const SecAggSessionBuffers& b) {
  NeighbourGraph graph;  // its own limits on n and k
  if (!ValidRoundParams(p) ||
      !graph
           .Init(ConstByteSpan(p.graph_seed, kGraphSeedBytes), p.devices,
                 p.degree)
           .ok()) {
    return false;
  }
  const uint32_t k = EffectiveDegree(p);
  return b.neighbours.size() >= k && b.sealed.size() >= k &&
         b.scratch.size() >= k && b.masked.size() >= p.mask_length;
}

void SecAggDeviceSession::WipeOwnSecrets() {
  mbedtls_platform_zeroize(enc_private_, sizeof(enc_private_));
  mbedtls_platform_zeroize(mask_private_, sizeof(mask_private_));
  mbedtls_platform_zeroize(self_seed_, sizeof(self_seed_));
}

void SecAggDeviceSession::Wipe(bool words) {
  WipeOwnSecrets();
  ZeroSpan(buffers_.neighbours);
  ZeroSpan(buffers_.sealed);
  ZeroSpan(buffers_.scratch);
  if (words) ZeroSpan(buffers_.masked);
  mbedtls_platform_zeroize(survivors_digest_, sizeof(survivors_digest_));
  mbedtls_platform_zeroize(&advert_, sizeof(advert_));
  peer_count_ = 0;
  received_count_ = 0;
  sealed_dropped_ = false;
}

void SecAggDeviceSession::Finish() {
  Wipe();
  phase_ = SecAggDevicePhase::kDone;
}

void SecAggDeviceSession::Abort() {
  Wipe();
  phase_ = SecAggDevicePhase::kAborted;
}

Status SecAggDeviceSession::Advertise(const SecAggSessionParams& params,
                                      RandomByteSource& random) {
  if (phase_ != SecAggDevicePhase::kIdle) return Status::FailedPrecondition();
  if (!ValidParams(params, buffers_)) return Status::InvalidArgument();
  params_ = params;
  Status s =
      X25519KeyPair(random, ByteSpan(enc_private_, kX25519KeyBytes),
                    ByteSpan(advert_.encryption_public, kX25519KeyBytes));
  if (s.ok()) {
    s = X25519KeyPair(random, ByteSpan(mask_private_, kX25519KeyBytes),
                      ByteSpan(advert_.mask_public, kX25519KeyBytes));
  }
  if (s.ok()) s = random.Generate(ByteSpan(self_seed_, kMaskSeedBytes));
  if (s.ok()) {
    s = CommitSelfSeed(
        params.round_id, params.own_index,
        ConstByteSpan(self_seed_, kMaskSeedBytes),
        ByteSpan(advert_.self_seed_commitment, kSelfSeedCommitmentBytes));
  }
  if (!s.ok()) {
    Wipe();
    return s;
  }
  phase_ = SecAggDevicePhase::kAdvertised;
  return Status::Ok();
}

// The place of `device` among the graph neighbours in neighbour_ids (their
// Shamir share index is place + 1).
Status SecAggDeviceSession::NeighbourPlace(uint32_t device,
                                           size_t& place) const {
  const uint32_t k = EffectiveDegree(params_);
  const Span<uint32_t> ids = View<uint32_t>(buffers_.scratch, k);
  for (place = 0; place < k; ++place) {
    if (ids[place] == device) return Status::Ok();
  }
  return Status::InvalidArgument();
}

Status SecAggDeviceSession::SealAll(Span<const SecAggPeerKeys> keys,
                                    RandomByteSource& random) {
  for (size_t a = 0; a < keys.size(); ++a) {
    size_t place = 0;
    Status s = NeighbourPlace(keys[a].device, place);
    if (!s.ok()) return s;
    std::byte key[kPairwiseKeyBytes];
    s = DerivePairwiseKey(
        ConstByteSpan(enc_private_, kX25519KeyBytes),
        ConstByteSpan(advert_.encryption_public, kX25519KeyBytes),
        ConstByteSpan(keys[a].encryption_public, kX25519KeyBytes),
        PairwiseKeyPurpose::kShareEncryption, random,
        ByteSpan(key, sizeof(key)));
    if (s.ok()) {
      const ShareAddress address{params_.round_id, params_.own_index,
                                 keys[a].device};
      const uint32_t k = EffectiveDegree(params_);
      const Span<ShamirShare> shares =
          View<ShamirShare>(buffers_.neighbours, 2 * k);
      const SharePair pair{shares[place], shares[k + place]};
      s = SealShares(ConstByteSpan(key, sizeof(key)), address, pair,
                     ByteSpan(buffers_.sealed[a].sealed, kSealedSharesBytes));
      buffers_.sealed[a].peer = keys[a].device;
    }
    mbedtls_platform_zeroize(key, sizeof(key));
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status SecAggDeviceSession::ShareKeys(Span<const SecAggPeerKeys> keys,
                                      RandomByteSource& random) {
  if (phase_ != SecAggDevicePhase::kAdvertised) {
    return Status::FailedPrecondition();
  }
  const uint32_t k = EffectiveDegree(params_);
  if (keys.size() > k) return Status::InvalidArgument();
  NeighbourGraph graph;
  Status s = graph.Init(ConstByteSpan(params_.graph_seed, kGraphSeedBytes),
                        params_.devices, params_.degree);
  if (s.ok()) {
    s = graph.Neighbours(params_.own_index,
                         Begin<uint32_t>(buffers_.scratch, k));
  }
  if (!s.ok()) return s;
  for (size_t a = 0; a < keys.size(); ++a) {
    size_t place = 0;
    if (!NeighbourPlace(keys[a].device, place).ok()) {
      return Status::InvalidArgument();
    }
    for (size_t b = 0; b < a; ++b) {
      if (keys[b].device == keys[a].device) return Status::InvalidArgument();
    }
  }
  if (keys.size() < params_.threshold) return Status::FailedPrecondition();
  // The shares go where the neighbours' keys are kept once all are sealed.
  const Span<ShamirShare> shares =
      Begin<ShamirShare>(buffers_.neighbours, 2 * k);
  s = ShamirSplit(ConstByteSpan(self_seed_, kMaskSeedBytes), params_.threshold,
                  k, random, shares.first(k));
  if (s.ok()) {
    s = ShamirSplit(ConstByteSpan(mask_private_, kX25519KeyBytes),
                    params_.threshold, k, random, shares.subspan(k, k));
  }
  if (s.ok()) s = SealAll(keys, random);
  ZeroSpan(buffers_.neighbours);
  ZeroSpan(buffers_.scratch);
  if (!s.ok()) {
    ZeroSpan(buffers_.sealed);
    return s;
  }
  Span<SecAggPeerKeys> kept = Begin<SecAggPeerKeys>(buffers_.neighbours, k);
  for (size_t a = 0; a < keys.size(); ++a) kept[a] = keys[a];
  peer_count_ = static_cast<uint32_t>(keys.size());
  phase_ = SecAggDevicePhase::kSharesSent;
  return Status::Ok();
}

// The keys phase 2 kept for `device`, or null.
const SecAggPeerKeys* SecAggDeviceSession::FindPeer(uint32_t device) const {
  for (size_t p = 0; p < peer_count_; ++p) {
    if (buffers_.neighbours[p].device == device) return &buffers_.neighbours[p];
  }
  return nullptr;
}

// Every delivered message comes from a neighbour of phase 2's keys, once.
Status SecAggDeviceSession::CheckDelivered(
    Span<const SecAggSealed> delivered) const {
  for (size_t a = 0; a < delivered.size(); ++a) {
    if (FindPeer(delivered[a].peer) == nullptr) {
      return Status::InvalidArgument();
    }
    for (size_t b = 0; b < a; ++b) {
      if (delivered[b].peer == delivered[a].peer) {
        return Status::InvalidArgument();
      }
    }
  }
  return Status::Ok();
}

// y = x + masks into buffers_.masked, the pairwise masks with the first
// `delivered` peers of `peers` (their mask keys, spans in the scratch).
Status SecAggDeviceSession::MaskWords(size_t delivered,
                                      Span<const uint32_t> input,
                                      RandomByteSource& random) {
  Span<uint32_t> y = buffers_.masked.first(params_.mask_length);
  if (input.data() != y.data()) {
    std::memmove(y.data(), input.data(), y.size_bytes());
  }
  MaskInputParams p;
  p.round_id = params_.round_id;
  p.own_index = params_.own_index;
  p.bits = params_.bits;
  p.self_seed = ConstByteSpan(self_seed_, kMaskSeedBytes);
  p.mask_private = ConstByteSpan(mask_private_, kX25519KeyBytes);
  p.mask_public = ConstByteSpan(advert_.mask_public, kX25519KeyBytes);
  p.neighbours = View<SecAggPeerKey>(buffers_.scratch, delivered);
  p.random = &random;
  return edgeadmm::MaskInput(p, y);
}

// Opens each delivered message into the received shares, which take the
// sealed messages' region.
Status SecAggDeviceSession::OpenAll(Span<const SecAggSealed> delivered,
                                    RandomByteSource& random) {
  sealed_dropped_ = true;
  ZeroSpan(buffers_.sealed);
  const Span<ReceivedShares> received =
      Begin<ReceivedShares>(buffers_.sealed, delivered.size());
  for (size_t a = 0; a < delivered.size(); ++a) {
    const SecAggPeerKeys* peer = FindPeer(delivered[a].peer);
    std::byte key[kPairwiseKeyBytes];
    Status s = DerivePairwiseKey(
        ConstByteSpan(enc_private_, kX25519KeyBytes),
        ConstByteSpan(advert_.encryption_public, kX25519KeyBytes),
        ConstByteSpan(peer->encryption_public, kX25519KeyBytes),
        PairwiseKeyPurpose::kShareEncryption, random,
        ByteSpan(key, sizeof(key)));
    if (s.ok()) {
      const ShareAddress address{params_.round_id, delivered[a].peer,
                                 params_.own_index};
      s = OpenShares(ConstByteSpan(key, sizeof(key)), address,
                     ConstByteSpan(delivered[a].sealed, kSealedSharesBytes),
                     received[a].shares);
    }
    mbedtls_platform_zeroize(key, sizeof(key));
    if (!s.ok()) return s;
    received[a].sender = delivered[a].peer;
  }
  return Status::Ok();
}

Status SecAggDeviceSession::MaskInput(Span<const SecAggSealed> delivered,
                                      Span<const uint32_t> input,
                                      RandomByteSource& random) {
  if (phase_ != SecAggDevicePhase::kSharesSent) {
    return Status::FailedPrecondition();
  }
  if (input.size() != params_.mask_length || delivered.size() > peer_count_) {
    return Status::InvalidArgument();
  }
  const uint32_t limit =
      params_.bits >= 32 ? 0xFFFFFFFFu : (uint32_t{1} << params_.bits) - 1;
  for (uint32_t v : input) {
    if ((v & ~limit) != 0) return Status::InvalidArgument();
  }
  Status s = CheckDelivered(delivered);
  if (!s.ok()) return s;
  const Span<SecAggPeerKey> peers =
      Begin<SecAggPeerKey>(buffers_.scratch, delivered.size());
  for (size_t a = 0; a < delivered.size(); ++a) {
    peers[a].index = delivered[a].peer;
    peers[a].mask_public = ConstByteSpan(
        FindPeer(delivered[a].peer)->mask_public, kX25519KeyBytes);
  }
  s = MaskWords(delivered.size(), input, random);
  ZeroSpan(buffers_.scratch);
  if (s.ok()) s = OpenAll(delivered, random);
  if (!s.ok()) {
    ZeroSpan(buffers_.masked.first(params_.mask_length));
    if (sealed_dropped_) ZeroSpan(buffers_.sealed);
    return s;
  }
  received_count_ = static_cast<uint32_t>(delivered.size());
  sealed_dropped_ = false;  // the phase that had them is over
  WipeOwnSecrets();
  ZeroSpan(buffers_.neighbours);  // Reveal's answer goes there
  phase_ = SecAggDevicePhase::kMaskedSent;
  return Status::Ok();
}

Span<const RevealedShare> SecAggDeviceSession::revealed_shares() const {
  return View<const RevealedShare>(buffers_.neighbours, received_count_);
}

Status SecAggDeviceSession::Reveal(const SurvivorAnswer& answer) {
  std::byte digest[sizeof(survivors_digest_)];
  Status s = DigestAnswer(answer, digest);
  if (!s.ok()) return s;
  if (phase_ == SecAggDevicePhase::kRevealed) {
    return std::memcmp(digest, survivors_digest_, sizeof(digest)) == 0
               ? Status::Ok()
               : Status::AlreadyExists();
  }
  if (phase_ != SecAggDevicePhase::kMaskedSent) {
    return Status::FailedPrecondition();
  }
  RevealRound round;
  round.own_index = params_.own_index;
  round.min_survivors = params_.min_survivors;
  s = SelectRevealedShares(
      View<const ReceivedShares>(buffers_.sealed, received_count_), answer,
      round, Begin<RevealedShare>(buffers_.neighbours, received_count_));
  if (!s.ok()) return s;
  std::memcpy(survivors_digest_, digest, sizeof(digest));
  ZeroSpan(buffers_.sealed);
  phase_ = SecAggDevicePhase::kRevealed;
  return Status::Ok();
}

}  // namespace edgeadmm
