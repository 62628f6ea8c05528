// Whole SecAgg+ rounds (sdk/src/secagg on the devices,
// aggregator/secure_aggregation on the gateway): n devices advertise key
// pairs, Shamir-share their self-mask seed and mask private key among their
// neighbours in sealed messages the gateway routes, some drop after the
// share phase, the survivors send masked inputs and then the shares the
// gateway asks for; the unmasked sum equals the plain sum of the survivors
// mod 2^bits, for many seeds and dropout sets. Also: a neighbourhood with
// fewer than s surviving shares cannot be reconstructed (the round
// aborts), a wrong share is caught by the commitment or the public-key
// check, and a tampered sealed message is refused by its receiver.
#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/result.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/masked_input.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/secagg/shamir.h"
#include "edgeadmm/secagg/share_reveal.h"
#include "edgeadmm/secagg/share_transport.h"
#include "edgeadmm/secure_aggregation/unmasking.h"
#include "gtest/gtest.h"

namespace edgeadmm::secure_aggregation {
namespace {

using Key = std::array<std::byte, 32>;

struct SimDevice {
  Key enc_private, enc_public, mask_private, mask_public, self_seed, commitment;
  std::vector<uint32_t> neighbours;
  std::vector<uint32_t> x, y;
  // Sealed messages received, by sender.
  std::vector<std::pair<uint32_t, std::vector<std::byte>>> inbox;
};

ConstByteSpan C(const Key& k) { return ConstByteSpan(k.data(), k.size()); }
ByteSpan M(Key& k) { return ByteSpan(k.data(), k.size()); }

class SecureRound {
 public:
  SecureRound(uint32_t n, uint32_t k, uint32_t bits, size_t length,
              uint64_t seed)
      : entropy_(seed), n_(n), bits_(bits), length_(length), round_(seed) {
    EXPECT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
    Key graph_seed;
    EXPECT_TRUE(drbg_.Generate(M(graph_seed)).ok());
    EXPECT_TRUE(graph_.Init(C(graph_seed), n, k).ok());
    threshold_ = graph_.degree() / 2 + 1;
    devices_.resize(n);
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    for (uint32_t i = 0; i < n; ++i) {
      SimDevice& d = devices_[i];
      EXPECT_TRUE(X25519KeyPair(drbg_, M(d.enc_private), M(d.enc_public)).ok());
      EXPECT_TRUE(
          X25519KeyPair(drbg_, M(d.mask_private), M(d.mask_public)).ok());
      EXPECT_TRUE(drbg_.Generate(M(d.self_seed)).ok());
      EXPECT_TRUE(
          CommitSelfSeed(round_, i, C(d.self_seed), M(d.commitment)).ok());
      d.neighbours.resize(graph_.degree());
      EXPECT_TRUE(graph_
                      .Neighbours(i, Span<uint32_t>(d.neighbours.data(),
                                                    d.neighbours.size()))
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

  // Device i splits its two secrets and seals one pair per neighbour.
  void ShareKeys(uint32_t i) {
    SimDevice& d = devices_[i];
    const size_t k = d.neighbours.size();
    std::vector<ShamirShare> seed_shares(k), key_shares(k);
    ASSERT_TRUE(ShamirSplit(C(d.self_seed), threshold_, k, drbg_,
                            Span<ShamirShare>(seed_shares.data(), k))
                    .ok());
    ASSERT_TRUE(ShamirSplit(C(d.mask_private), threshold_, k, drbg_,
                            Span<ShamirShare>(key_shares.data(), k))
                    .ok());
    for (size_t a = 0; a < k; ++a) {
      const uint32_t j = d.neighbours[a];
      Key key;
      ASSERT_TRUE(DerivePairwiseKey(C(d.enc_private), C(d.enc_public),
                                    C(devices_[j].enc_public),
                                    PairwiseKeyPurpose::kShareEncryption, drbg_,
                                    M(key))
                      .ok());
      std::vector<std::byte> sealed(kSealedSharesBytes);
      ASSERT_TRUE(SealShares(C(key), {round_, i, j},
                             {seed_shares[a], key_shares[a]},
                             ByteSpan(sealed.data(), sealed.size()))
                      .ok());
      devices_[j].inbox.emplace_back(i, std::move(sealed));  // via the gateway
    }
  }

  // Survivor i masks x with every neighbour it received shares from.
  void MaskedInput(uint32_t i) {
    SimDevice& d = devices_[i];
    std::vector<SecAggPeerKey> peers;
    for (const auto& message : d.inbox) {
      peers.push_back({message.first, C(devices_[message.first].mask_public)});
    }
    d.y = d.x;
    MaskInputParams p;
    p.round_id = round_;
    p.own_index = i;
    p.bits = bits_;
    p.self_seed = C(d.self_seed);
    p.mask_private = C(d.mask_private);
    p.mask_public = C(d.mask_public);
    p.neighbours = Span<const SecAggPeerKey>(peers.data(), peers.size());
    p.random = &drbg_;
    ASSERT_TRUE(MaskInput(p, Span<uint32_t>(d.y.data(), d.y.size())).ok());
  }

  // Survivor j opens the message from `sender` and answers the gateway's
  // phase 3 answer built from `survivors` (SelectRevealedShares): the self
  // seed's share if the sender is listed, else the mask key's.
  Status Reveal(uint32_t j, uint32_t sender,
                const std::vector<uint32_t>& survivors, ShamirShare& out) {
    SimDevice& d = devices_[j];
    for (const auto& message : d.inbox) {
      if (message.first != sender) continue;
      Key key;
      EDGEADMM_TRY(DerivePairwiseKey(
          C(d.enc_private), C(d.enc_public), C(devices_[sender].enc_public),
          PairwiseKeyPurpose::kShareEncryption, drbg_, M(key)));
      ReceivedShares received;
      received.sender = sender;
      EDGEADMM_TRY(OpenShares(
          C(key), {round_, sender, j},
          ConstByteSpan(message.second.data(), message.second.size()),
          received.shares));
      // Phase 3's answer to j: the survivors among j and its sender.
      std::vector<uint32_t> listed;
      for (uint32_t v : survivors) {
        if (v == j || v == sender) listed.push_back(v);
      }
      SurvivorAnswer survived;
      survived.survivors = static_cast<uint32_t>(survivors.size());
      survived.listed = Span<const uint32_t>(listed.data(), listed.size());
      RevealRound reveal;
      reveal.own_index = j;
      reveal.min_survivors = threshold_;
      RevealedShare answer;
      EDGEADMM_TRY(SelectRevealedShares(
          Span<const ReceivedShares>(&received, 1), survived, reveal,
          Span<RevealedShare>(&answer, 1)));
      out = answer.share;
      return Status::Ok();
    }
    return Status::NotFound();
  }

  std::vector<uint32_t> Everyone() const {
    std::vector<uint32_t> all(n_);
    for (uint32_t i = 0; i < n_; ++i) all[i] = i;
    return all;
  }

  // The gateway collects `sender`'s shares from the surviving neighbours
  // and reconstructs the secret it needs.
  Status Reconstruct(uint32_t sender, const std::vector<bool>& survived,
                     Key& secret) {
    std::vector<uint32_t> survivors;
    for (uint32_t i = 0; i < n_; ++i) {
      if (survived[i]) survivors.push_back(i);
    }
    std::vector<ShamirShare> shares;
    for (uint32_t j : devices_[sender].neighbours) {
      if (!survived[j]) continue;
      ShamirShare share;
      EDGEADMM_TRY(Reveal(j, sender, survivors, share));
      shares.push_back(share);
    }
    return ShamirReconstruct(
        Span<const ShamirShare>(shares.data(), shares.size()), threshold_,
        M(secret));
  }

  std::vector<SimDevice> devices_;
  TestEntropy entropy_;
  Drbg drbg_;
  NeighbourGraph graph_;
  uint32_t n_, bits_;
  size_t length_;
  uint64_t round_;
  uint32_t threshold_ = 0;
};

// Runs the round with `dropped` leaving after the share phase; returns the
// unmasking's status, the sum in `sum` and the plain sum in `plain`.
Status RunRound(SecureRound& r, const std::vector<uint32_t>& dropped,
                std::vector<uint32_t>& sum, std::vector<uint32_t>& plain) {
  for (uint32_t i = 0; i < r.n_; ++i) r.ShareKeys(i);
  std::vector<bool> survived(r.n_, true);
  for (uint32_t d : dropped) survived[d] = false;
  plain.assign(r.length_, 0);
  std::vector<Key> secrets(r.n_);
  std::vector<Survivor> survivors;
  std::vector<Dropped> gone;
  for (uint32_t i = 0; i < r.n_; ++i) {
    EDGEADMM_TRY(r.Reconstruct(i, survived, secrets[i]));
    const SimDevice& d = r.devices_[i];
    if (!survived[i]) {
      gone.push_back({i, C(secrets[i]), C(d.mask_public)});
      continue;
    }
    r.MaskedInput(i);
    for (size_t w = 0; w < r.length_; ++w) plain[w] += d.x[w];
    survivors.push_back({i, Span<const uint32_t>(d.y.data(), d.y.size()),
                         C(secrets[i]), C(d.commitment), C(d.mask_public)});
  }
  const uint32_t mask = r.bits_ == 32 ? 0xFFFFFFFFu : (1u << r.bits_) - 1;
  for (uint32_t& w : plain) w &= mask;
  UnmaskRequest request;
  request.round_id = r.round_;
  request.bits = r.bits_;
  request.graph = &r.graph_;
  request.survivors = Span<const Survivor>(survivors.data(), survivors.size());
  request.dropped = Span<const Dropped>(gone.data(), gone.size());
  sum.assign(r.length_, 0);
  return UnmaskSum(request, r.drbg_, Span<uint32_t>(sum.data(), sum.size()));
}

TEST(SecureRoundTest, UnmaskedSumEqualsPlainSumWithDropouts) {
  const uint32_t bits_choices[] = {32, 24, 16};
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const uint32_t bits = bits_choices[seed % 3];
    SecureRound round(16, 8, bits, 29, seed);
    // Up to three devices drop after sharing: every neighbourhood of 8
    // keeps >= 5 = s survivors.
    std::vector<uint32_t> dropped;
    for (uint32_t m = 0; m < seed % 4; ++m) {
      dropped.push_back(static_cast<uint32_t>((seed * 5 + 7 * m) % 16));
    }
    std::sort(dropped.begin(), dropped.end());
    dropped.erase(std::unique(dropped.begin(), dropped.end()), dropped.end());
    std::vector<uint32_t> sum, plain;
    ASSERT_TRUE(RunRound(round, dropped, sum, plain).ok()) << seed;
    EXPECT_EQ(sum, plain) << "seed " << seed << " bits " << bits;
    // A survivor's masked input is not its input.
    const uint32_t someone = dropped.empty() || dropped[0] != 0 ? 0 : 1;
    size_t equal = 0;
    for (size_t w = 0; w < 29; ++w) {
      equal += round.devices_[someone].y[w] == round.devices_[someone].x[w];
    }
    EXPECT_LT(equal, 2u);
  }
}

TEST(SecureRoundTest, CompleteGraphIsOriginalSecAgg) {
  SecureRound round(5, 4, 20, 7, 99);
  EXPECT_EQ(round.graph_.degree(), 4u);
  std::vector<uint32_t> sum, plain;
  ASSERT_TRUE(RunRound(round, {3}, sum, plain).ok());
  EXPECT_EQ(sum, plain);
}

TEST(SecureRoundTest, TooFewSurvivingSharesAbortTheRound) {
  SecureRound round(16, 8, 32, 5, 7);
  // Drop four of device 0's neighbours and device 0: its mask key has
  // 8 - 4 = 4 < s = 5 surviving shares.
  std::vector<uint32_t> dropped = {0};
  for (int a = 0; a < 4; ++a)
    dropped.push_back(round.devices_[0].neighbours[a]);
  std::sort(dropped.begin(), dropped.end());
  std::vector<uint32_t> sum, plain;
  EXPECT_EQ(RunRound(round, dropped, sum, plain), Status::FailedPrecondition());
}

TEST(SecureRoundTest, WrongSharesAreCaught) {
  SecureRound round(16, 8, 32, 5, 11);
  for (uint32_t i = 0; i < 16; ++i) round.ShareKeys(i);
  std::vector<bool> survived(16, true);
  survived[4] = false;
  Key seed1, key4;
  ASSERT_TRUE(round.Reconstruct(1, survived, seed1).ok());
  ASSERT_TRUE(round.Reconstruct(4, survived, key4).ok());
  EXPECT_EQ(std::memcmp(seed1.data(), round.devices_[1].self_seed.data(), 32),
            0);
  // s - 1 shares: refused; a reconstruction at the lower threshold is
  // another secret, which the commitment refuses.
  std::vector<ShamirShare> few;
  for (uint32_t a = 0; a + 1 < round.threshold_; ++a) {
    ShamirShare share;
    ASSERT_TRUE(
        round
            .Reveal(round.devices_[1].neighbours[a], 1, round.Everyone(), share)
            .ok());
    few.push_back(share);
  }
  Key guess;
  EXPECT_EQ(ShamirReconstruct(Span<const ShamirShare>(few.data(), few.size()),
                              round.threshold_, M(guess)),
            Status::FailedPrecondition());
  ASSERT_TRUE(ShamirReconstruct(Span<const ShamirShare>(few.data(), few.size()),
                                round.threshold_ - 1, M(guess))
                  .ok());
  EXPECT_NE(std::memcmp(guess.data(), seed1.data(), 32), 0);
  std::vector<Survivor> survivors;
  std::vector<uint32_t> y(5, 0);
  const SimDevice& d1 = round.devices_[1];
  survivors.push_back({1, Span<const uint32_t>(y.data(), y.size()), C(guess),
                       C(d1.commitment), C(d1.mask_public)});
  UnmaskRequest request;
  request.round_id = round.round_;
  request.graph = &round.graph_;
  request.survivors = Span<const Survivor>(survivors.data(), 1);
  std::vector<uint32_t> sum(5, 7);
  uint32_t failed = 99;
  EXPECT_EQ(UnmaskSum(request, round.drbg_,
                      Span<uint32_t>(sum.data(), sum.size()), &failed),
            Status::DataLoss());
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(sum, std::vector<uint32_t>(5, 0));
  // A dropped device's mask key with one byte wrong: the public key check.
  key4[3] ^= std::byte{0x10};
  const Dropped gone[] = {{4, C(key4), C(round.devices_[4].mask_public)}};
  request.survivors = Span<const Survivor>();
  request.dropped = Span<const Dropped>(gone, 1);
  EXPECT_EQ(UnmaskSum(request, round.drbg_,
                      Span<uint32_t>(sum.data(), sum.size()), &failed),
            Status::DataLoss());
  EXPECT_EQ(failed, 4u);
}

TEST(SecureRoundTest, TamperedMessageIsRefusedByItsReceiver) {
  SecureRound round(16, 8, 32, 5, 13);
  round.ShareKeys(2);
  const uint32_t j = round.devices_[2].neighbours[0];
  ShamirShare share;
  ASSERT_TRUE(round.Reveal(j, 2, round.Everyone(), share).ok());
  round.devices_[j].inbox[0].second[5] ^= std::byte{1};  // the gateway
  EXPECT_EQ(round.Reveal(j, 2, round.Everyone(), share), Status::DataLoss());
}

TEST(SecureRoundTest, RefusesBadRequests) {
  SecureRound round(8, 4, 32, 3, 17);
  std::vector<uint32_t> y(3, 0), sum(3, 1);
  const SimDevice& d = round.devices_[0];
  const Survivor twice[] = {
      {0, Span<const uint32_t>(y.data(), 3), C(d.self_seed), C(d.commitment),
       C(d.mask_public)},
      {0, Span<const uint32_t>(y.data(), 3), C(d.self_seed), C(d.commitment),
       C(d.mask_public)}};
  UnmaskRequest request;
  request.graph = &round.graph_;
  request.survivors = Span<const Survivor>(twice, 2);
  EXPECT_EQ(UnmaskSum(request, round.drbg_, Span<uint32_t>(sum.data(), 3)),
            Status::InvalidArgument());
  request.survivors = Span<const Survivor>(twice, 1);
  EXPECT_EQ(UnmaskSum(request, round.drbg_, Span<uint32_t>(sum.data(), 2)),
            Status::InvalidArgument());  // length
  request.bits = 0;
  EXPECT_EQ(UnmaskSum(request, round.drbg_, Span<uint32_t>(sum.data(), 3)),
            Status::InvalidArgument());
  request.bits = 32;
  request.graph = nullptr;
  EXPECT_EQ(UnmaskSum(request, round.drbg_, Span<uint32_t>(sum.data(), 3)),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation
