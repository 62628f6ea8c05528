// What the gateway's SecAgg+ round refuses, and that a refused message
// leaves no trace: after every refusal below the round still completes
// with the plain sum. Bad parameters, messages in the wrong or a closed
// phase, a device outside the cohort or out of the round, a second
// different message (an identical resend is stored once), over-budget
// messages, sealed messages to a non-neighbour, and revealed shares of
// both secrets of one device or of the wrong one.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "secagg_fleet.h"

namespace edgeadmm::secure_aggregation::secagg_test {
namespace {

TEST(SecAggRoundRefusalsTest, BadParameters) {
  SecAggRoundParams p;
  p.devices = 20;
  p.degree = 6;
  p.threshold = 4;
  p.bits = 16;
  p.mask_length = 5;
  p.min_survivors = 10;
  {
    SecAggRound ok;
    EXPECT_TRUE(ok.Init(p).ok());
    EXPECT_EQ(ok.phase(), SecAggPhase::kAdvertise);
    EXPECT_EQ(ok.budget_bytes(), 96u + 6u * (86u + 38u) + 4u * 5u);
    EXPECT_EQ(ok.Init(p).code(), StatusCode::kFailedPrecondition);
  }
  auto refused = [](SecAggRoundParams bad) {
    SecAggRound r;
    const host::Error e = r.Init(bad);
    return e.code() == StatusCode::kInvalidArgument &&
           r.phase() == SecAggPhase::kNotStarted;
  };
  SecAggRoundParams bad = p;
  bad.degree = 5;  // odd, < n - 1
  EXPECT_TRUE(refused(bad));
  bad = p;
  bad.threshold = 1;
  EXPECT_TRUE(refused(bad));
  bad.threshold = 7;  // > k
  EXPECT_TRUE(refused(bad));
  bad = p;
  bad.bits = 33;
  EXPECT_TRUE(refused(bad));
  bad = p;
  bad.mask_length = 0;
  EXPECT_TRUE(refused(bad));
  bad = p;
  bad.min_survivors = 21;
  EXPECT_TRUE(refused(bad));
  bad = p;
  bad.devices = 1;
  EXPECT_TRUE(refused(bad));
}

// Completes the round from phase `from` on (every device sends) and checks
// the sum.
void Finish(Fleet& f, SecAggPhase from) {
  const uint32_t n = f.params.devices;
  if (from <= SecAggPhase::kAdvertise) {
    for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(f.Advertise(i).ok()) << i;
    ASSERT_TRUE(f.round.CloseAdvertise().ok());
  }
  if (from <= SecAggPhase::kShareKeys) {
    for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(f.ShareKeys(i).ok()) << i;
    ASSERT_TRUE(f.round.CloseShareKeys().ok());
  }
  if (from <= SecAggPhase::kMaskedInput) {
    for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(f.SendMasked(i).ok()) << i;
    ASSERT_TRUE(f.round.CloseMaskedInput().ok());
  }
  for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(f.Reveal(i).ok()) << i;
  auto sum = f.round.CloseUnmasking(f.drbg());
  ASSERT_TRUE(sum.ok()) << sum.error().ToString();
  EXPECT_EQ(sum.value(), f.PlainSum());
}

TEST(SecAggRoundRefusalsTest, AdvertisePhase) {
  Fleet f(20, 6, 4, 16, 5, 201);
  // Messages of later phases, and answers not yet due.
  const uint32_t y[5] = {};
  const host::Error early = f.round.SubmitMaskedInput(0, y);
  EXPECT_EQ(early.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(early.message().find("'masked-input'"), std::string::npos);
  EXPECT_NE(early.message().find("'advertise'"), std::string::npos);
  EXPECT_EQ(f.round.SubmitShares(0, Span<const SealedShareMessage>()).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(f.round.NeighbourKeys(0).status(), Status::FailedPrecondition());
  EXPECT_EQ(f.round.CloseShareKeys().code(), StatusCode::kFailedPrecondition);
  // Outside the cohort.
  EXPECT_EQ(f.round.Advertise(20, f.AdvertisementOf(0)).code(),
            StatusCode::kFailedPrecondition);
  // Wrong sizes: over the budget, then under it but malformed.
  Advertisement big = f.AdvertisementOf(1);
  std::vector<std::byte> long_key(33);
  big.mask_public = ConstByteSpan(long_key.data(), long_key.size());
  EXPECT_EQ(f.round.Advertise(1, big).code(), StatusCode::kResourceExhausted);
  Advertisement short_key = f.AdvertisementOf(1);
  short_key.mask_public = ConstByteSpan(long_key.data(), 31);
  EXPECT_EQ(f.round.Advertise(1, short_key).code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(f.round.stored()[1].advertised);
  EXPECT_EQ(f.round.stored()[1].bytes, 0u);
  // Twice: identical is stored once, different is refused.
  ASSERT_TRUE(f.Advertise(2).ok());
  ASSERT_TRUE(f.Advertise(2).ok());
  EXPECT_EQ(f.round.stored()[2].bytes, kAdvertisementBytes);
  EXPECT_EQ(f.round.Advertise(2, f.AdvertisementOf(3)).code(),
            StatusCode::kAlreadyExists);
  Finish(f, SecAggPhase::kAdvertise);
  // A closed phase is closed.
  EXPECT_EQ(f.round.Advertise(4, f.AdvertisementOf(4)).code(),
            StatusCode::kFailedPrecondition);
}

TEST(SecAggRoundRefusalsTest, ShareKeysPhase) {
  Fleet f(20, 6, 4, 16, 5, 202);
  for (uint32_t i = 0; i < 20; ++i) {
    if (i != 7) {
      ASSERT_TRUE(f.Advertise(i).ok());
    }
  }
  ASSERT_TRUE(f.round.CloseAdvertise().ok());
  EXPECT_EQ(f.round.Advertise(7, f.AdvertisementOf(7)).code(),
            StatusCode::kFailedPrecondition);  // late
  EXPECT_EQ(f.round.NeighbourKeys(7).status(), Status::FailedPrecondition());
  EXPECT_EQ(f.round.SubmitShares(7, Span<const SealedShareMessage>()).code(),
            StatusCode::kFailedPrecondition);  // did not advertise
  // Device 0's honest messages, then altered copies.
  std::vector<std::vector<std::byte>> sealed;
  std::vector<SealedShareMessage> m;
  ASSERT_TRUE(f.BuildShares(0, sealed, m).ok());
  auto submit = [&](const std::vector<SealedShareMessage>& msgs) {
    return f.round.SubmitShares(
        0, Span<const SealedShareMessage>(msgs.data(), msgs.size()));
  };
  uint32_t outsider = 0;
  while (outsider == 0 || f.graph.Adjacent(0, outsider)) ++outsider;
  std::vector<SealedShareMessage> bad = m;
  bad[0].receiver = outsider;  // a non-neighbour
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = m;
  bad[0].receiver = 20;  // outside the cohort
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = m;
  bad[1].receiver = bad[0].receiver;  // twice to one neighbour
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = m;
  bad.pop_back();  // one neighbour left out
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = m;
  bad[2].sealed = ConstByteSpan(sealed[2].data(), kSealedSharesBytes - 1);
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = m;
  while (bad.size() <= f.graph.degree()) bad.push_back(m[0]);  // k + 1
  EXPECT_EQ(submit(bad).code(), StatusCode::kResourceExhausted);
  if (f.graph.Adjacent(0, 7)) {  // to a neighbour that did not advertise
    bad = m;
    bad[0].receiver = 7;
    EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(f.round.stored()[0].sealed.empty());
  ASSERT_TRUE(submit(m).ok());
  ASSERT_TRUE(submit(m).ok());  // an identical resend
  EXPECT_EQ(f.round.stored()[0].bytes,
            kAdvertisementBytes + m.size() * kSealedEntryBytes);
  std::vector<SealedShareMessage> other = m;
  std::vector<std::byte> flipped = sealed[0];
  flipped[3] ^= std::byte{1};
  other[0].sealed = ConstByteSpan(flipped.data(), flipped.size());
  EXPECT_EQ(submit(other).code(), StatusCode::kAlreadyExists);
  for (uint32_t i = 1; i < 20; ++i) {
    if (i != 7) {
      ASSERT_TRUE(f.ShareKeys(i).ok()) << i;
    }
  }
  ASSERT_TRUE(f.round.CloseShareKeys().ok());
  EXPECT_EQ(f.ShareKeys(1).code(), StatusCode::kFailedPrecondition);  // late
  // Device 7 advertised nothing: out of the round, and not in the sum.
  EXPECT_EQ(f.round.SharesFor(7).status(), Status::FailedPrecondition());
  for (uint32_t i = 0; i < 20; ++i) {
    if (i != 7) {
      ASSERT_TRUE(f.SendMasked(i).ok()) << i;
    }
  }
  ASSERT_TRUE(f.round.CloseMaskedInput().ok());
  for (uint32_t i = 0; i < 20; ++i) {
    if (i != 7) {
      ASSERT_TRUE(f.Reveal(i).ok()) << i;
    }
  }
  auto sum = f.round.CloseUnmasking(f.drbg());
  ASSERT_TRUE(sum.ok()) << sum.error().ToString();
  EXPECT_EQ(sum.value(), f.PlainSum());
}

TEST(SecAggRoundRefusalsTest, MaskedInputPhase) {
  Fleet f(20, 6, 4, 16, 5, 203);
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.Advertise(i).ok());
  ASSERT_TRUE(f.round.CloseAdvertise().ok());
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.ShareKeys(i).ok());
  ASSERT_TRUE(f.round.CloseShareKeys().ok());
  ASSERT_TRUE(f.BuildMasked(0).ok());
  std::vector<uint32_t> y = f.devices[0].y;
  auto submit = [&](uint32_t device, const std::vector<uint32_t>& v) {
    return f.round.SubmitMaskedInput(device,
                                     Span<const uint32_t>(v.data(), v.size()));
  };
  EXPECT_EQ(submit(20, y).code(), StatusCode::kFailedPrecondition);
  std::vector<uint32_t> bad = y;
  bad.pop_back();
  EXPECT_EQ(submit(0, bad).code(), StatusCode::kInvalidArgument);
  bad = y;
  bad.push_back(0);
  EXPECT_EQ(submit(0, bad).code(), StatusCode::kResourceExhausted);
  bad = y;
  bad[1] = 1u << 16;  // >= 2^b
  EXPECT_EQ(submit(0, bad).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(f.round.stored()[0].masked);
  ASSERT_TRUE(submit(0, y).ok());
  ASSERT_TRUE(submit(0, y).ok());  // a rebooted device resends y
  bad = y;
  bad[0] ^= 1;
  EXPECT_EQ(submit(0, bad).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(f.round.stored()[0].masked_input, y);
  EXPECT_EQ(f.round.Survivors().status(), Status::FailedPrecondition());
  for (uint32_t i = 1; i < 20; ++i) ASSERT_TRUE(f.SendMasked(i).ok());
  ASSERT_TRUE(f.round.CloseMaskedInput().ok());
  EXPECT_EQ(submit(0, y).code(), StatusCode::kFailedPrecondition);  // late
  Finish(f, SecAggPhase::kUnmasking);
}

TEST(SecAggRoundRefusalsTest, UnmaskingPhase) {
  Fleet f(20, 6, 4, 16, 5, 204);
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.Advertise(i).ok());
  ASSERT_TRUE(f.round.CloseAdvertise().ok());
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.ShareKeys(i).ok());
  ASSERT_TRUE(f.round.CloseShareKeys().ok());
  const uint32_t dropped = 11;
  for (uint32_t i = 0; i < 20; ++i) {
    if (i != dropped) {
      ASSERT_TRUE(f.SendMasked(i).ok());
    }
  }
  ASSERT_TRUE(f.round.CloseMaskedInput().ok());
  EXPECT_EQ(f.Reveal(dropped).code(), StatusCode::kFailedPrecondition);
  // A survivor next to the dropped device.
  const uint32_t j = f.NeighboursOf(dropped)[0];
  std::vector<RevealedShare> answer;
  ASSERT_TRUE(f.BuildReveal(j, answer).ok());
  auto submit = [&](const std::vector<RevealedShare>& a) {
    return f.round.SubmitRevealedShares(
        j, Span<const RevealedShare>(a.data(), a.size()));
  };
  size_t at_dropped = 0, at_survivor = 0;
  for (size_t a = 0; a < answer.size(); ++a) {
    if (answer[a].sender == dropped) at_dropped = a;
    if (answer[a].sender != dropped) at_survivor = a;
  }
  // Both shares of one neighbour: its mask key next to its self seed.
  const SimDevice& dj = f.devices[j];
  std::vector<RevealedShare> bad = answer;
  RevealedShare both = answer[at_survivor];
  for (const ReceivedShares& r : dj.received) {
    if (r.sender == both.sender) both.share = r.shares.mask_key;
  }
  both.self_seed = false;
  bad.erase(bad.begin() + static_cast<std::ptrdiff_t>(at_dropped));
  bad.push_back(both);  // k entries: within the budget
  const host::Error two = submit(bad);
  EXPECT_EQ(two.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(two.message().find("two shares"), std::string::npos)
      << two.ToString();
  bad = answer;
  bad[at_survivor] = both;  // the mask key of a survivor alone
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = answer;
  bad[at_dropped].self_seed = true;  // the self seed of a dropped device
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = answer;
  bad.pop_back();
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = answer;
  bad[0].sender = j;  // not a sender to j
  EXPECT_EQ(submit(bad).code(), StatusCode::kInvalidArgument);
  bad = answer;
  while (bad.size() <= f.graph.degree()) bad.push_back(answer[0]);
  EXPECT_EQ(submit(bad).code(), StatusCode::kResourceExhausted);
  EXPECT_FALSE(f.round.stored()[j].revealed);
  ASSERT_TRUE(submit(answer).ok());
  ASSERT_TRUE(submit(answer).ok());  // identical: stored once
  bad = answer;
  bad[0].share.value[0] ^= std::byte{1};
  EXPECT_EQ(submit(bad).code(), StatusCode::kAlreadyExists);
  // Another holder claiming a share index j already revealed.
  const uint32_t sender = answer[at_survivor].sender;
  uint32_t other = 0;
  for (uint32_t h : f.NeighboursOf(sender)) {
    if (h != j && h != dropped) other = h;
  }
  std::vector<RevealedShare> theirs;
  ASSERT_TRUE(f.BuildReveal(other, theirs).ok());
  for (RevealedShare& r : theirs) {
    if (r.sender == sender) r.share.index = answer[at_survivor].share.index;
  }
  EXPECT_EQ(f.round
                .SubmitRevealedShares(other, Span<const RevealedShare>(
                                                 theirs.data(), theirs.size()))
                .code(),
            StatusCode::kInvalidArgument);
  for (uint32_t i = 0; i < 20; ++i) {
    if (i != dropped && i != j) {
      ASSERT_TRUE(f.Reveal(i).ok()) << i;
    }
  }
  auto sum = f.round.CloseUnmasking(f.drbg());
  ASSERT_TRUE(sum.ok()) << sum.error().ToString();
  EXPECT_EQ(sum.value(), f.PlainSum());
  EXPECT_EQ(f.round.phase(), SecAggPhase::kDone);
  EXPECT_EQ(submit(answer).code(), StatusCode::kFailedPrecondition);  // late
  EXPECT_EQ(f.round.CloseUnmasking(f.drbg()).status(),
            Status::FailedPrecondition());
}

TEST(SecAggRoundRefusalsTest, AWrongShareAbortsWithTheDeviceNamed) {
  Fleet f(20, 6, 4, 16, 5, 205);
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.Advertise(i).ok());
  ASSERT_TRUE(f.round.CloseAdvertise().ok());
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.ShareKeys(i).ok());
  ASSERT_TRUE(f.round.CloseShareKeys().ok());
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(f.SendMasked(i).ok());
  ASSERT_TRUE(f.round.CloseMaskedInput().ok());
  // Every holder of device 3's self seed sends one wrong byte of it.
  for (uint32_t i = 0; i < 20; ++i) {
    std::vector<RevealedShare> a;
    ASSERT_TRUE(f.BuildReveal(i, a).ok());
    for (RevealedShare& r : a) {
      if (r.sender == 3) r.share.value[0] ^= std::byte{0x40};
    }
    ASSERT_TRUE(f.round
                    .SubmitRevealedShares(
                        i, Span<const RevealedShare>(a.data(), a.size()))
                    .ok());
  }
  auto sum = f.round.CloseUnmasking(f.drbg());
  EXPECT_EQ(sum.status(), Status::DataLoss());
  EXPECT_NE(sum.error().message().find("device 3"), std::string::npos)
      << sum.error().ToString();
  EXPECT_EQ(f.round.phase(), SecAggPhase::kAborted);
  EXPECT_TRUE(f.round.stored().empty());
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation::secagg_test
