// The gateway's SecAgg+ round (SecAggRound) through every phase, with n
// devices running the SDK's real device-side functions (secagg_fleet.h):
// the unmasked sum equals the plain sum mod 2^b; dropouts at each phase
// that leave every neighbourhood >= s survivors still give the survivors'
// sum; too many abort and unmask nothing; random dropouts over many seeds
// match an independent computation of who survives and whether the round
// aborts; phase 3's answer to a device lists only it and its surviving
// senders (O(k)); and the gateway's stored state holds masked inputs only.
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "secagg_fleet.h"

namespace edgeadmm::secure_aggregation::secagg_test {
namespace {

TEST(SecAggRoundTest, UnmaskedSumEqualsPlainSum) {
  const uint32_t bits_choices[] = {32, 24, 16, 7};
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Fleet f(20, 6, 4, bits_choices[seed - 1], 37, seed);
    const Outcome out = RunRound(f, {});
    ASSERT_TRUE(out.error.ok()) << out.error.ToString();
    EXPECT_EQ(f.round.phase(), SecAggPhase::kDone);
    EXPECT_EQ(out.sum, f.PlainSum()) << "seed " << seed;
    // The sum is of all 20 inputs: not of 19 (a check that can fail).
    std::vector<uint32_t> partial = f.PlainSum();
    for (size_t w = 0; w < partial.size(); ++w) partial[w] -= f.devices[0].x[w];
    EXPECT_NE(out.sum, partial);
  }
}

TEST(SecAggRoundTest, DropoutsAtEachPhaseGiveTheSurvivorsSum) {
  // k = 10, s = 6: four devices dropping (one per phase) leave every
  // neighbourhood >= 6 holders whichever they are.
  for (int at = 1; at <= 5; ++at) {
    Fleet f(20, 10, 6, 24, 16, 40 + at);
    Drops drops;
    if (at == 1 || at == 5) drops.advertise = {3};
    if (at == 2 || at == 5) drops.share = {8};
    if (at == 3 || at == 5) drops.mask = {12};
    if (at == 4 || at == 5) drops.reveal = {17};
    const Outcome out = RunRound(f, drops);
    ASSERT_TRUE(out.error.ok()) << at << ": " << out.error.ToString();
    for (const auto& refused : out.refused) EXPECT_TRUE(refused.empty());
    const std::vector<uint32_t> expected = f.PlainSum();
    EXPECT_EQ(out.sum, expected) << "dropout at phase " << at;
    // Devices dropped before phase 3 are not in the sum, a phase-4 dropout is.
    auto survivors = f.round.Survivors();
    ASSERT_TRUE(survivors.ok());
    const size_t dropped_before_mask = (at == 5) ? 3 : (at <= 3 ? 1 : 0);
    EXPECT_EQ(survivors->size(), 20 - dropped_before_mask);
  }
}

// SurvivorsFor(i): |U3| and exactly i and its graph neighbours that sent i
// shares and a masked input, increasing; at most k + 1 entries whatever n.
TEST(SecAggRoundTest, PhaseThreeAnswersEachDeviceItsNeighbourhoodOnly) {
  Fleet f(60, 6, 4, 16, 5, 77);
  const std::set<uint32_t> no_share = {9};  // advertised, sent no shares
  const std::set<uint32_t> no_mask = {20, 41};
  for (uint32_t i = 0; i < 60; ++i) ASSERT_TRUE(f.Advertise(i).ok());
  ASSERT_TRUE(f.round.CloseAdvertise().ok());
  for (uint32_t i = 0; i < 60; ++i) {
    if (no_share.count(i) == 0) {
      ASSERT_TRUE(f.ShareKeys(i).ok());
    }
  }
  ASSERT_TRUE(f.round.CloseShareKeys().ok());
  for (uint32_t i = 0; i < 60; ++i) {
    if (no_share.count(i) == 0 && no_mask.count(i) == 0) {
      ASSERT_TRUE(f.SendMasked(i).ok());
    }
  }
  EXPECT_EQ(f.round.SurvivorsFor(0).status(), Status::FailedPrecondition());
  ASSERT_TRUE(f.round.CloseMaskedInput().ok());
  const std::vector<uint32_t> all = f.round.Survivors().value();
  ASSERT_EQ(all.size(), 57u);
  size_t shortened = 0;
  for (uint32_t i : all) {
    const auto answer = f.round.SurvivorsFor(i);
    ASSERT_TRUE(answer.ok()) << i;
    EXPECT_EQ(answer->survivors, 57u);
    std::vector<uint32_t> expected = {i};
    for (uint32_t j : f.NeighboursOf(i)) {
      if (std::binary_search(all.begin(), all.end(), j)) expected.push_back(j);
    }
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(answer->listed, expected) << "device " << i;
    EXPECT_LE(answer->listed.size(), 7u);
    shortened += answer->listed.size() < 7 ? 1 : 0;
  }
  EXPECT_GT(shortened, 0u);  // some neighbourhoods lost a device
  // Not to a device outside U3.
  EXPECT_EQ(f.round.SurvivorsFor(20).status(), Status::FailedPrecondition());
  EXPECT_EQ(f.round.SurvivorsFor(9).status(), Status::FailedPrecondition());
}

TEST(SecAggRoundTest, TooManyDropoutsAtMaskedInputAbort) {
  Fleet f(20, 10, 6, 32, 8, 61);
  // Five of device 0's ten neighbours send no masked input: 5 < s = 6.
  const std::vector<uint32_t> nb = f.NeighboursOf(0);
  Drops drops;
  drops.mask = {nb[0], nb[2], nb[4], nb[6], nb[8]};
  const Outcome out = RunRound(f, drops);
  EXPECT_EQ(out.aborted_at, 3);
  EXPECT_EQ(out.error.code(), StatusCode::kAborted) << out.error.ToString();
  EXPECT_EQ(f.round.phase(), SecAggPhase::kAborted);
  EXPECT_TRUE(f.round.stored().empty());  // nothing left to unmask
  EXPECT_EQ(f.round.Survivors().status(), Status::FailedPrecondition());
  EXPECT_EQ(f.round.CloseUnmasking(f.drbg()).status(),
            Status::FailedPrecondition());
  EXPECT_EQ(f.round.SubmitRevealedShares(1, Span<const RevealedShare>()).code(),
            StatusCode::kFailedPrecondition);

  // Four of them: 6 holders remain, the round completes.
  Fleet g(20, 10, 6, 32, 8, 61);
  const std::vector<uint32_t> nb_g = g.NeighboursOf(0);
  drops.mask = {nb_g[0], nb_g[2], nb_g[4], nb_g[6]};
  const Outcome ok = RunRound(g, drops);
  ASSERT_TRUE(ok.error.ok()) << ok.error.ToString();
  EXPECT_EQ(ok.sum, g.PlainSum());
}

TEST(SecAggRoundTest, TooManyDropoutsAtUnmaskingAbort) {
  Fleet f(20, 10, 6, 32, 8, 62);
  const std::vector<uint32_t> nb = f.NeighboursOf(5);
  Drops drops;
  drops.reveal = {nb[1], nb[3], nb[5], nb[7], nb[9]};
  const Outcome out = RunRound(f, drops);
  EXPECT_EQ(out.aborted_at, 4);
  EXPECT_EQ(out.error.code(), StatusCode::kAborted) << out.error.ToString();
  EXPECT_TRUE(out.sum.empty());
  EXPECT_EQ(f.round.phase(), SecAggPhase::kAborted);
  EXPECT_TRUE(f.round.stored().empty());
}

TEST(SecAggRoundTest, TooFewDevicesAtAnEarlyPhaseAbort) {
  Fleet f(20, 6, 4, 16, 4, 63, /*min_survivors=*/18);
  Drops drops;
  drops.advertise = {1, 2, 3};  // 17 < 18 advertise
  Outcome out = RunRound(f, drops);
  EXPECT_EQ(out.aborted_at, 1);
  EXPECT_EQ(out.error.code(), StatusCode::kAborted);
  Fleet g(20, 6, 4, 16, 4, 63, 18);
  drops = {};
  drops.share = {1, 9, 15};
  out = RunRound(g, drops);
  EXPECT_EQ(out.aborted_at, 2);
  Fleet h(20, 6, 4, 16, 4, 63, 18);
  drops = {};
  drops.mask = {4, 11, 19};
  out = RunRound(h, drops);
  EXPECT_EQ(out.aborted_at, 3);
  Fleet ok(20, 6, 4, 16, 4, 63, 18);
  drops.mask = {4, 11};
  out = RunRound(ok, drops);
  ASSERT_TRUE(out.error.ok()) << out.error.ToString();
  EXPECT_EQ(out.sum, ok.PlainSum());
}

// Who survives each phase and whether the round completes, computed from
// the graph alone (not by SecAggRound).
struct Expected {
  int aborted_at = 0;
  std::set<uint32_t> refused_at_share;
};

Expected Predict(const Fleet& f, const Drops& drops) {
  const uint32_t n = f.params.devices;
  const uint32_t s = f.params.threshold;
  auto count_in = [&](uint32_t d, const std::vector<bool>& set) {
    uint32_t c = 0;
    for (uint32_t j : f.NeighboursOf(d)) c += set[j] ? 1 : 0;
    return c;
  };
  auto size = [](const std::vector<bool>& set) {
    return static_cast<uint32_t>(std::count(set.begin(), set.end(), true));
  };
  Expected e;
  std::vector<bool> a1(n), u2(n), u3(n), u4(n);
  for (uint32_t i = 0; i < n; ++i) a1[i] = drops.advertise.count(i) == 0;
  if (size(a1) < f.params.min_survivors) return e.aborted_at = 1, e;
  for (uint32_t i = 0; i < n; ++i) {
    if (!a1[i] || drops.share.count(i) != 0) continue;
    if (count_in(i, a1) < s) {
      e.refused_at_share.insert(i);
      continue;
    }
    u2[i] = true;
  }
  if (size(u2) < f.params.min_survivors) return e.aborted_at = 2, e;
  for (uint32_t i = 0; i < n; ++i) u3[i] = u2[i] && !drops.mask.count(i);
  for (uint32_t i = 0; i < n; ++i) u4[i] = u3[i] && !drops.reveal.count(i);
  if (size(u3) < f.params.min_survivors) return e.aborted_at = 3, e;
  for (uint32_t d = 0; d < n; ++d) {
    if (u2[d] && count_in(d, u3) < s) return e.aborted_at = 3, e;
  }
  for (uint32_t d = 0; d < n; ++d) {
    if (u2[d] && count_in(d, u4) < s) return e.aborted_at = 4, e;
  }
  return e;
}

TEST(SecAggRoundTest, RandomDropoutsMatchAnIndependentPrediction) {
  int completed = 0;
  int aborted[5] = {};
  for (uint64_t seed = 100; seed < 124; ++seed) {
    Fleet f(20, 6, 4, 20, 9, seed, 12);
    Drops drops;
    std::set<uint32_t>* phases[] = {&drops.advertise, &drops.share, &drops.mask,
                                    &drops.reveal};
    // Each device drops at each phase with probability 1/32 to 4/32.
    std::mt19937 rng(static_cast<uint32_t>(seed));
    const uint32_t per32 = 1 + seed % 4;
    for (uint32_t i = 0; i < 20; ++i) {
      for (std::set<uint32_t>* phase : phases) {
        if (rng() % 32 < per32) phase->insert(i);
      }
    }
    const Expected e = Predict(f, drops);
    const Outcome out = RunRound(f, drops);
    EXPECT_EQ(out.aborted_at, e.aborted_at)
        << "seed " << seed << ": " << out.error.ToString();
    EXPECT_EQ(out.refused[2], e.refused_at_share) << "seed " << seed;
    if (e.refused_at_share.empty()) {
      EXPECT_TRUE(out.first_refusal.ok());
    }
    for (int p : {1, 3, 4}) EXPECT_TRUE(out.refused[p].empty()) << seed;
    if (out.aborted_at == 0) {
      ++completed;
      EXPECT_EQ(out.sum, f.PlainSum()) << "seed " << seed;
    } else {
      ++aborted[out.aborted_at];
      EXPECT_EQ(out.error.code(), StatusCode::kAborted);
      EXPECT_TRUE(f.round.stored().empty());
    }
  }
  // Both outcomes occur, so both branches were checked.
  EXPECT_GT(completed, 5);
  EXPECT_GT(aborted[3] + aborted[4], 2);
}

// The malicious gateway's view: every vector the round stores, and every
// share it holds. Returns the devices whose input it could read: a stored
// vector equal to the device's input, or shares of both its secrets.
std::set<uint32_t> ExposedDevices(const std::vector<StoredDevice>& stored,
                                  const std::vector<SimDevice>& devices) {
  std::set<uint32_t> exposed;
  std::vector<std::set<bool>> kinds(devices.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    const StoredDevice& d = stored[i];
    for (const SimDevice& dev : devices) {
      if (d.masked_input == dev.x) exposed.insert(dev.index);
    }
    for (const RevealedShare& r : d.revealed_shares) {
      kinds[r.sender].insert(r.self_seed);
    }
  }
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i].size() > 1) exposed.insert(static_cast<uint32_t>(i));
  }
  return exposed;
}

TEST(SecAggRoundTest, TheGatewayHoldsOnlyMaskedInputs) {
  Fleet f(20, 8, 5, 24, 12, 71);
  Drops drops;
  drops.mask = {6};  // a dropped device: its mask-key shares are revealed
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.Advertise(i).ok());
  ASSERT_TRUE(f.round.CloseAdvertise().ok());
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.ShareKeys(i).ok());
  ASSERT_TRUE(f.round.CloseShareKeys().ok());
  for (uint32_t i = 0; i < 20; ++i) {
    if (i != 6) {
      ASSERT_TRUE(f.SendMasked(i).ok());
    }
  }
  ASSERT_TRUE(f.round.CloseMaskedInput().ok());
  for (uint32_t i = 0; i < 20; ++i) {
    if (i != 6) {
      ASSERT_TRUE(f.Reveal(i).ok());
    }
  }
  // The fullest state: every message of the round is stored.
  const std::vector<StoredDevice>& stored = f.round.stored();
  ASSERT_EQ(stored.size(), 20u);
  size_t masked = 0;
  for (uint32_t i = 0; i < 20; ++i) {
    if (i == 6) continue;
    ASSERT_TRUE(stored[i].masked);
    EXPECT_EQ(stored[i].masked_input, f.devices[i].y);  // y_i, as sent
    EXPECT_NE(stored[i].masked_input, f.devices[i].x);
    EXPECT_LE(stored[i].bytes, f.round.budget_bytes());
    ++masked;
  }
  EXPECT_EQ(masked, 19u);
  EXPECT_TRUE(ExposedDevices(stored, f.devices).empty());
  auto sum = f.round.CloseUnmasking(f.drbg());
  ASSERT_TRUE(sum.ok()) << sum.error().ToString();
  EXPECT_EQ(sum.value(), f.PlainSum());
  EXPECT_TRUE(f.round.stored().empty());  // nothing kept after the round

  // The audit can fail: a broken device that sends x unmasked, and a
  // stored state holding both secrets' shares of one device.
  Fleet g(20, 8, 5, 24, 12, 72);
  g.devices[9].send_unmasked = true;
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(g.Advertise(i).ok());
  ASSERT_TRUE(g.round.CloseAdvertise().ok());
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(g.ShareKeys(i).ok());
  ASSERT_TRUE(g.round.CloseShareKeys().ok());
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(g.SendMasked(i).ok());
  EXPECT_EQ(ExposedDevices(g.round.stored(), g.devices),
            std::set<uint32_t>({9}));
  std::vector<StoredDevice> forged(2);
  forged[0].revealed_shares.resize(1);
  forged[0].revealed_shares[0].sender = 4;
  forged[0].revealed_shares[0].self_seed = true;
  forged[1].revealed_shares = forged[0].revealed_shares;
  forged[1].revealed_shares[0].self_seed = false;
  EXPECT_EQ(ExposedDevices(forged, g.devices), std::set<uint32_t>({4}));
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation::secagg_test
