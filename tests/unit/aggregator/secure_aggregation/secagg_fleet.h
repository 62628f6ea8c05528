// A test fleet for SecAggRound: n simulated devices, each running the SDK's
// real device-side SecAgg+ functions (X25519KeyPair, CommitSelfSeed,
// ShamirSplit, DerivePairwiseKey, SealShares, OpenShares, MaskInput,
// SelectRevealedShares) on what the gateway's round answers it, and a
// driver that runs every phase with chosen dropouts.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/masked_input.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/secagg/shamir.h"
#include "edgeadmm/secagg/share_reveal.h"
#include "edgeadmm/secagg/share_transport.h"
#include "edgeadmm/secure_aggregation/secagg_round.h"
#include "gtest/gtest.h"

namespace edgeadmm::secure_aggregation::secagg_test {

using Key = std::array<std::byte, 32>;

inline ConstByteSpan C(const Key& k) {
  return ConstByteSpan(k.data(), k.size());
}
inline ByteSpan M(Key& k) { return ByteSpan(k.data(), k.size()); }

// What one device persists across the round.
struct SimDevice {
  uint32_t index = 0;
  Key enc_private, enc_public, mask_private, mask_public, self_seed, commitment;
  std::vector<uint32_t> x, y;
  std::vector<AdvertisedKeys> neighbour_keys;  // phase 1's answer
  std::vector<ReceivedShares> received;        // phase 2's answer, opened
  bool send_unmasked = false;  // a broken device: sends x as its "y"
};

// Devices that stop at each phase (they send nothing from then on).
struct Drops {
  std::set<uint32_t> advertise, share, mask, reveal;
};

class Fleet {
 public:
  Fleet(uint32_t n, uint32_t k, uint32_t s, uint32_t bits, uint32_t length,
        uint64_t seed, uint32_t min_survivors = 1)
      : entropy_(seed) {
    EXPECT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
    params.round_id = 1000 + seed;
    params.devices = n;
    params.degree = k;
    params.threshold = s;
    params.bits = bits;
    params.mask_length = length;
    params.min_survivors = min_survivors;
    EXPECT_TRUE(drbg_
                    .Generate(ByteSpan(params.graph_seed.data(),
                                       params.graph_seed.size()))
                    .ok());
    const host::Error init = round.Init(params);
    EXPECT_TRUE(init.ok()) << init.ToString();
    // Each device derives the graph itself from the task's parameters.
    EXPECT_TRUE(
        graph.Init(ConstByteSpan(params.graph_seed.data(), 32), n, k).ok());
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    devices.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      SimDevice& d = devices[i];
      d.index = i;
      EXPECT_TRUE(X25519KeyPair(drbg_, M(d.enc_private), M(d.enc_public)).ok());
      EXPECT_TRUE(
          X25519KeyPair(drbg_, M(d.mask_private), M(d.mask_public)).ok());
      EXPECT_TRUE(drbg_.Generate(M(d.self_seed)).ok());
      EXPECT_TRUE(
          CommitSelfSeed(params.round_id, i, C(d.self_seed), M(d.commitment))
              .ok());
      d.x.resize(length);
      EXPECT_TRUE(
          drbg_
              .Generate(ByteSpan(reinterpret_cast<std::byte*>(d.x.data()),
                                 sizeof(uint32_t) * length))
              .ok());
      for (uint32_t& w : d.x) w &= mask;
    }
  }

  std::vector<uint32_t> NeighboursOf(uint32_t i) const {
    std::vector<uint32_t> out(graph.degree());
    EXPECT_TRUE(
        graph.Neighbours(i, Span<uint32_t>(out.data(), out.size())).ok());
    return out;
  }

  Advertisement AdvertisementOf(uint32_t i) const {
    const SimDevice& d = devices[i];
    return {C(d.enc_public), C(d.mask_public), C(d.commitment)};
  }

  host::Error Advertise(uint32_t i) {
    return round.Advertise(i, AdvertisementOf(i));
  }

  // Phase 2 on device i: fetch the neighbours' keys, split both secrets s
  // of k (share index = the neighbour's place in i's list + 1) and seal
  // one pair for each neighbour that advertised. The sealed bytes land in
  // `sealed` (kept by the caller for the submission).
  host::Error BuildShares(uint32_t i,
                          std::vector<std::vector<std::byte>>& sealed,
                          std::vector<SealedShareMessage>& messages) {
    SimDevice& d = devices[i];
    auto keys = round.NeighbourKeys(i);
    if (!keys.ok()) return keys.error();
    d.neighbour_keys = keys.value();
    const std::vector<uint32_t> all = NeighboursOf(i);
    const size_t k = all.size();
    std::vector<ShamirShare> seed_shares(k), key_shares(k);
    EXPECT_TRUE(ShamirSplit(C(d.self_seed), params.threshold, k, drbg_,
                            Span<ShamirShare>(seed_shares.data(), k))
                    .ok());
    EXPECT_TRUE(ShamirSplit(C(d.mask_private), params.threshold, k, drbg_,
                            Span<ShamirShare>(key_shares.data(), k))
                    .ok());
    sealed.assign(d.neighbour_keys.size(),
                  std::vector<std::byte>(kSealedSharesBytes));
    messages.clear();
    for (size_t a = 0; a < d.neighbour_keys.size(); ++a) {
      const AdvertisedKeys& peer = d.neighbour_keys[a];
      const size_t place =
          std::find(all.begin(), all.end(), peer.device) - all.begin();
      Key key;
      EXPECT_TRUE(
          DerivePairwiseKey(C(d.enc_private), C(d.enc_public),
                            ConstByteSpan(peer.encryption_public.data(), 32),
                            PairwiseKeyPurpose::kShareEncryption, drbg_, M(key))
              .ok());
      EXPECT_TRUE(SealShares(C(key), {params.round_id, i, peer.device},
                             {seed_shares[place], key_shares[place]},
                             ByteSpan(sealed[a].data(), sealed[a].size()))
                      .ok());
      messages.push_back(
          {peer.device, ConstByteSpan(sealed[a].data(), sealed[a].size())});
    }
    return host::Error::Ok();
  }

  host::Error ShareKeys(uint32_t i) {
    std::vector<std::vector<std::byte>> sealed;
    std::vector<SealedShareMessage> messages;
    EDGEADMM_HOST_TRY(BuildShares(i, sealed, messages));
    return round.SubmitShares(
        i, Span<const SealedShareMessage>(messages.data(), messages.size()));
  }

  // Phase 3 on device i: open the delivered messages and mask x with the
  // senders' mask keys.
  host::Error BuildMasked(uint32_t i) {
    SimDevice& d = devices[i];
    auto delivered = round.SharesFor(i);
    if (!delivered.ok()) return delivered.error();
    d.received.clear();
    std::vector<SecAggPeerKey> peers;
    for (const DeliveredShares& m : delivered.value()) {
      const AdvertisedKeys* peer = nullptr;
      for (const AdvertisedKeys& a : d.neighbour_keys) {
        if (a.device == m.sender) peer = &a;
      }
      EXPECT_NE(peer, nullptr);
      if (peer == nullptr) return host::Error::Internal("unknown sender");
      Key key;
      EXPECT_TRUE(
          DerivePairwiseKey(C(d.enc_private), C(d.enc_public),
                            ConstByteSpan(peer->encryption_public.data(), 32),
                            PairwiseKeyPurpose::kShareEncryption, drbg_, M(key))
              .ok());
      ReceivedShares r;
      r.sender = m.sender;
      EXPECT_TRUE(OpenShares(C(key), {params.round_id, m.sender, i},
                             ConstByteSpan(m.sealed.data(), m.sealed.size()),
                             r.shares)
                      .ok());
      d.received.push_back(r);
      peers.push_back({m.sender, ConstByteSpan(peer->mask_public.data(), 32)});
    }
    d.y = d.x;
    if (d.send_unmasked) return host::Error::Ok();
    MaskInputParams p;
    p.round_id = params.round_id;
    p.own_index = i;
    p.bits = params.bits;
    p.self_seed = C(d.self_seed);
    p.mask_private = C(d.mask_private);
    p.mask_public = C(d.mask_public);
    p.neighbours = Span<const SecAggPeerKey>(peers.data(), peers.size());
    p.random = &drbg_;
    return MaskInput(p, Span<uint32_t>(d.y.data(), d.y.size()));
  }

  host::Error SendMasked(uint32_t i) {
    EDGEADMM_HOST_TRY(BuildMasked(i));
    const SimDevice& d = devices[i];
    return round.SubmitMaskedInput(
        i, Span<const uint32_t>(d.y.data(), d.y.size()));
  }

  // Phase 4 on device i: its answer to phase 3's answer (SurvivorsFor).
  host::Error BuildReveal(uint32_t i, std::vector<RevealedShare>& out) {
    const SimDevice& d = devices[i];
    auto survivors = round.SurvivorsFor(i);
    if (!survivors.ok()) return survivors.error();
    SurvivorAnswer answer;
    answer.survivors = survivors->survivors;
    answer.listed = Span<const uint32_t>(survivors->listed.data(),
                                         survivors->listed.size());
    RevealRound reveal;
    reveal.own_index = i;
    reveal.min_survivors = params.min_survivors;
    out.assign(d.received.size(), RevealedShare());
    return SelectRevealedShares(
        Span<const ReceivedShares>(d.received.data(), d.received.size()),
        answer, reveal, Span<RevealedShare>(out.data(), out.size()));
  }

  host::Error Reveal(uint32_t i) {
    std::vector<RevealedShare> out;
    EDGEADMM_HOST_TRY(BuildReveal(i, out));
    return round.SubmitRevealedShares(
        i, Span<const RevealedShare>(out.data(), out.size()));
  }

  // sum of x over the devices that sent a masked input, mod 2^bits.
  std::vector<uint32_t> PlainSum() const {
    std::vector<uint32_t> sum(params.mask_length, 0);
    for (const SimDevice& d : devices) {
      if (d.y.empty()) continue;
      for (size_t w = 0; w < sum.size(); ++w) sum[w] += d.x[w];
    }
    const uint32_t mask =
        params.bits == 32 ? 0xFFFFFFFFu : (1u << params.bits) - 1;
    for (uint32_t& w : sum) w &= mask;
    return sum;
  }

  Drbg& drbg() { return drbg_; }

  SecAggRoundParams params;
  SecAggRound round;
  NeighbourGraph graph;  // the devices' own copy
  std::vector<SimDevice> devices;

 private:
  TestEntropy entropy_;
  Drbg drbg_;
};

// Which phase's close the round failed at (0: it completed).
struct Outcome {
  int aborted_at = 0;
  host::Error error;
  std::vector<uint32_t> sum;
  // Devices the gateway refused, by phase (1..4), and the first refusal's
  // error.
  std::set<uint32_t> refused[5];
  host::Error first_refusal;
};

// Runs every phase; a device in drops.<phase> sends nothing from that
// phase on. A device the gateway refuses is recorded and counts as dropped.
inline Outcome RunRound(Fleet& f, const Drops& drops) {
  Outcome out;
  const uint32_t n = f.params.devices;
  std::set<uint32_t> gone;
  auto phase = [&](int p, const std::set<uint32_t>& drop, auto send) {
    for (uint32_t i : drop) gone.insert(i);
    for (uint32_t i = 0; i < n; ++i) {
      if (gone.count(i) != 0) continue;
      const host::Error e = send(i);
      if (e.ok()) continue;
      gone.insert(i);
      out.refused[p].insert(i);
      if (out.first_refusal.ok()) out.first_refusal = e;
    }
  };
  phase(1, drops.advertise, [&](uint32_t i) { return f.Advertise(i); });
  out.error = f.round.CloseAdvertise();
  if (!out.error.ok()) return out.aborted_at = 1, out;
  phase(2, drops.share, [&](uint32_t i) { return f.ShareKeys(i); });
  out.error = f.round.CloseShareKeys();
  if (!out.error.ok()) return out.aborted_at = 2, out;
  phase(3, drops.mask, [&](uint32_t i) { return f.SendMasked(i); });
  out.error = f.round.CloseMaskedInput();
  if (!out.error.ok()) return out.aborted_at = 3, out;
  phase(4, drops.reveal, [&](uint32_t i) { return f.Reveal(i); });
  auto sum = f.round.CloseUnmasking(f.drbg());
  if (!sum.ok()) {
    out.error = sum.error();
    out.aborted_at = 4;
    return out;
  }
  out.sum = sum.value();
  return out;
}

}  // namespace edgeadmm::secure_aggregation::secagg_test
