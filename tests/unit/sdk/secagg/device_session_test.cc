// SecAggDeviceSession on its own (portable, also run on the Cortex-M4F):
// three devices (k = 2, the complete graph) exchange their messages
// directly; in every phase the blob restores into a fresh session that
// gives the byte-identical message and blob; steps out of order, foreign
// neighbours, a corrupted blob and a second, different phase 3 answer are
// refused; Finish and Abort leave the caller's memory all zero; a failed
// MaskInput drops the sealed messages but the stored blob restores them,
// and y can be made in place in the caller's update; the session's RAM
// stays within its documented size. The sum against the
// gateway's SecAggRound is tests/unit/aggregator/secure_aggregation/
// secagg_device_session_test.cc.
#include "edgeadmm/secagg/device_session.h"

#include <cstring>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gtest/gtest.h"
#if EDGEADMM_TEST_DTLS_POOL
#include "edgeadmm/dtls/dtls_memory_pool.h"
#endif

namespace edgeadmm {
namespace {

constexpr uint32_t kN = 3;
constexpr size_t kK = 2;
constexpr size_t kM = 5;
using Arrays = SecAggSessionArrays<kK, kM>;

// The blob must be at most this (SecAggSessionBlobBytes(2, 5)).
constexpr size_t kBlobBytes = 600;

// The session's own RAM on a 32-bit MCU is 344 B and its buffers 168 B a
// neighbour (docs/sdk.md): for k = 32, 5,720 B, within issue 33's +6 KiB
// (the m words of y apart). A host build has 64-bit spans.
static_assert(sizeof(void*) != 4 || sizeof(SecAggDeviceSession) <= 344,
              "SecAggDeviceSession grew: update docs/sdk.md");
static_assert(sizeof(void*) != 4 || SecAggSessionBufferBytes(1, 0) <= 168,
              "the buffers grew: update docs/sdk.md");
static_assert(sizeof(void*) != 4 || sizeof(SecAggDeviceSession) +
                                            SecAggSessionBufferBytes(32, 0) <=
                                        6 * 1024,
              "k = 32 no longer fits 6 KiB");

// Phase 3's answer listing `listed` (the complete graph: every survivor is
// a neighbour), `survivors` in all (the list's length by default).
template <size_t N>
SurvivorAnswer Answer(const uint32_t (&listed)[N], uint32_t survivors = N) {
  SurvivorAnswer a;
  a.survivors = survivors;
  a.listed = Span<const uint32_t>(listed, N);
  return a;
}

class SecAggDeviceSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if EDGEADMM_TEST_DTLS_POOL
    dtls::StartDtlsMemoryPool();  // bare metal: Mbed TLS's only allocator
#endif
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
    for (uint32_t i = 0; i < kN; ++i) {
      params_[i].round_id = 77;
      params_[i].devices = kN;
      params_[i].degree = 2;
      params_[i].threshold = 2;
      params_[i].bits = 16;
      params_[i].mask_length = kM;
      params_[i].min_survivors = 2;
      params_[i].own_index = i;
      for (size_t b = 0; b < kGraphSeedBytes; ++b) {
        params_[i].graph_seed[b] = static_cast<std::byte>(b);
      }
      for (size_t w = 0; w < kM; ++w) x_[i][w] = 1000u * i + w;
    }
  }

  // What the gateway would answer device i in phase 1 and in phase 2.
  void KeysFor(uint32_t i, SecAggPeerKeys (&out)[kK]) {
    size_t a = 0;
    for (uint32_t j = 0; j < kN; ++j) {
      if (j == i) continue;
      out[a].device = j;
      std::memcpy(out[a].encryption_public,
                  sessions_[j].advertisement().encryption_public, 32);
      std::memcpy(out[a].mask_public, sessions_[j].advertisement().mask_public,
                  32);
      ++a;
    }
  }
  void SharesFor(uint32_t i, SecAggSealed (&out)[kK]) {
    size_t a = 0;
    for (uint32_t j = 0; j < kN; ++j) {
      for (const SecAggSealed& s : sessions_[j].sealed_messages()) {
        if (s.peer != i) continue;
        out[a] = s;
        out[a].peer = j;
        ++a;
      }
    }
    ASSERT_EQ(a, kK);
  }

  // Serializes device i, restores the blob into a fresh session and
  // checks it gives the same blob and `message`.
  template <typename Message>
  void ExpectRestores(uint32_t i, Message message) {
    std::byte blob[kBlobBytes];
    const StatusWithSize n = sessions_[i].Serialize(ByteSpan(blob, kBlobBytes));
    ASSERT_TRUE(n.ok());
    Arrays arrays;
    SecAggDeviceSession fresh(arrays.buffers());
    ASSERT_TRUE(fresh.Restore(ConstByteSpan(blob, n.size())).ok());
    EXPECT_EQ(fresh.phase(), sessions_[i].phase());
    std::byte again[kBlobBytes];
    const StatusWithSize m = fresh.Serialize(ByteSpan(again, kBlobBytes));
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m.size(), n.size());
    EXPECT_EQ(std::memcmp(blob, again, n.size()), 0);
    EXPECT_TRUE(message(sessions_[i], fresh));
  }

  TestEntropy entropy_{5};
  Drbg drbg_;
  SecAggSessionParams params_[kN];
  uint32_t x_[kN][kM] = {};
  Arrays arrays_[kN];
  SecAggDeviceSession sessions_[kN] = {
      SecAggDeviceSession(arrays_[0].buffers()),
      SecAggDeviceSession(arrays_[1].buffers()),
      SecAggDeviceSession(arrays_[2].buffers())};
};

// True when every byte of `array` is zero.
template <typename T, size_t N>
bool Zero(const T (&array)[N]) {
  const auto* p = reinterpret_cast<const unsigned char*>(array);
  for (size_t i = 0; i < sizeof(array); ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

// True when every byte of the caller's memory is zero (each array; the
// padding between them is no one's).
bool AllZero(const Arrays& a) {
  return Zero(a.neighbours) && Zero(a.sealed) && Zero(a.scratch) &&
         Zero(a.masked);
}

template <typename T>
bool SameBytes(Span<const T> a, Span<const T> b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

TEST_F(SecAggDeviceSessionTest, EveryPhaseRestoresByteIdentical) {
  EXPECT_LE(SecAggSessionBlobBytes(kK, kM), kBlobBytes);
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(sessions_[i].Advertise(params_[i], drbg_).ok());
  }
  ExpectRestores(
      0, [](const SecAggDeviceSession& a, const SecAggDeviceSession& b) {
        return std::memcmp(&a.advertisement(), &b.advertisement(),
                           sizeof(SecAggAdvertisement)) == 0;
      });
  for (uint32_t i = 0; i < kN; ++i) {
    SecAggPeerKeys keys[kK];
    KeysFor(i, keys);
    ASSERT_TRUE(sessions_[i].ShareKeys(keys, drbg_).ok());
  }
  ExpectRestores(
      1, [](const SecAggDeviceSession& a, const SecAggDeviceSession& b) {
        return SameBytes(a.sealed_messages(), b.sealed_messages());
      });
  // The gateway holds every sealed message before it answers phase 2
  // (MaskInput reuses their memory).
  SecAggSealed delivered[kN][kK];
  for (uint32_t i = 0; i < kN; ++i) SharesFor(i, delivered[i]);
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(sessions_[i].MaskInput(delivered[i], x_[i], drbg_).ok());
  }
  // y is masked: not x.
  EXPECT_FALSE(
      SameBytes(sessions_[2].masked_input(), Span<const uint32_t>(x_[2], kM)));
  ExpectRestores(
      2, [](const SecAggDeviceSession& a, const SecAggDeviceSession& b) {
        return SameBytes(a.masked_input(), b.masked_input());
      });
  const uint32_t all[kN] = {0, 1, 2};
  ASSERT_TRUE(sessions_[0].Reveal(Answer(all)).ok());
  ExpectRestores(
      0, [](const SecAggDeviceSession& a, const SecAggDeviceSession& b) {
        return SameBytes(a.revealed_shares(), b.revealed_shares());
      });
  // Every neighbour survived: self-seed shares only.
  for (const RevealedShare& r : sessions_[0].revealed_shares()) {
    EXPECT_TRUE(r.self_seed);
  }
  EXPECT_FALSE(AllZero(arrays_[0]));
  sessions_[0].Finish();
  EXPECT_EQ(sessions_[0].phase(), SecAggDevicePhase::kDone);
  EXPECT_TRUE(AllZero(arrays_[0]));  // the caller's memory is wiped
  EXPECT_EQ(sessions_[0].Reveal(Answer(all)), Status::FailedPrecondition());
  std::byte blob[kBlobBytes];
  EXPECT_EQ(sessions_[0].Serialize(ByteSpan(blob, kBlobBytes)).status(),
            Status::FailedPrecondition());
}

TEST_F(SecAggDeviceSessionTest, RefusesOutOfOrderForeignAndCorrupt) {
  SecAggSealed none[1];
  EXPECT_EQ(
      sessions_[0].MaskInput(Span<const SecAggSealed>(none, 0), x_[0], drbg_),
      Status::FailedPrecondition());
  SecAggSessionParams bad = params_[0];
  bad.threshold = 3;  // above k
  EXPECT_EQ(sessions_[0].Advertise(bad, drbg_), Status::InvalidArgument());
  EXPECT_EQ(sessions_[0].phase(), SecAggDevicePhase::kIdle);
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(sessions_[i].Advertise(params_[i], drbg_).ok());
  }
  SecAggPeerKeys keys[kK];
  KeysFor(0, keys);
  SecAggPeerKeys foreign[kK] = {keys[0], keys[0]};  // listed twice
  EXPECT_EQ(sessions_[0].ShareKeys(foreign, drbg_), Status::InvalidArgument());
  foreign[1].device = 0;  // itself
  EXPECT_EQ(sessions_[0].ShareKeys(foreign, drbg_), Status::InvalidArgument());
  EXPECT_EQ(sessions_[0].ShareKeys(Span<const SecAggPeerKeys>(keys, 1), drbg_),
            Status::FailedPrecondition());  // 1 < s
  EXPECT_EQ(sessions_[0].phase(), SecAggDevicePhase::kAdvertised);
  // A corrupted blob: DATA_LOSS, and the session keeps its phase.
  std::byte blob[kBlobBytes];
  const StatusWithSize n = sessions_[0].Serialize(ByteSpan(blob, kBlobBytes));
  ASSERT_TRUE(n.ok());
  blob[100] ^= std::byte{1};
  EXPECT_EQ(sessions_[2].Restore(ConstByteSpan(blob, n.size())),
            Status::DataLoss());
  EXPECT_EQ(sessions_[2].phase(), SecAggDevicePhase::kAdvertised);
  EXPECT_EQ(sessions_[2].params().own_index, 2u);
}

TEST_F(SecAggDeviceSessionTest, SecondSurvivorListIsRefused) {
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(sessions_[i].Advertise(params_[i], drbg_).ok());
  }
  for (uint32_t i = 0; i < kN; ++i) {
    SecAggPeerKeys keys[kK];
    KeysFor(i, keys);
    ASSERT_TRUE(sessions_[i].ShareKeys(keys, drbg_).ok());
  }
  // The gateway holds every sealed message before it answers phase 2
  // (MaskInput reuses their memory).
  SecAggSealed delivered[kN][kK];
  for (uint32_t i = 0; i < kN; ++i) SharesFor(i, delivered[i]);
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(sessions_[i].MaskInput(delivered[i], x_[i], drbg_).ok());
  }
  const uint32_t all[kN] = {0, 1, 2};
  const uint32_t without_two[2] = {0, 1};
  ASSERT_TRUE(sessions_[0].Reveal(Answer(all)).ok());
  EXPECT_EQ(sessions_[0].Reveal(Answer(without_two)), Status::AlreadyExists());
  // The same list with another count in all is another answer.
  EXPECT_EQ(sessions_[0].Reveal(Answer(all, kN - 1)), Status::AlreadyExists());
  EXPECT_EQ(sessions_[0].Reveal(Answer(all)), Status::Ok());
  for (const RevealedShare& r : sessions_[0].revealed_shares()) {
    EXPECT_TRUE(r.self_seed);  // still the answer to `all`
  }
  // Answered first, the other list reveals device 2's mask-key share.
  ASSERT_TRUE(sessions_[1].Reveal(Answer(without_two)).ok());
  bool mask_key = false;
  for (const RevealedShare& r : sessions_[1].revealed_shares()) {
    if (r.sender == 2) mask_key = !r.self_seed;
  }
  EXPECT_TRUE(mask_key);
  EXPECT_EQ(sessions_[1].Reveal(Answer(all)), Status::AlreadyExists());
  // Abort wipes the memory (y, received shares, the answer) too.
  EXPECT_FALSE(AllZero(arrays_[2]));
  sessions_[2].Abort();
  EXPECT_EQ(sessions_[2].phase(), SecAggDevicePhase::kAborted);
  EXPECT_TRUE(AllZero(arrays_[2]));
  std::byte blob[kBlobBytes];
  EXPECT_EQ(sessions_[2].Serialize(ByteSpan(blob, kBlobBytes)).status(),
            Status::FailedPrecondition());
}

TEST_F(SecAggDeviceSessionTest, MasksInPlaceAndSurvivesAFailedOpen) {
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(sessions_[i].Advertise(params_[i], drbg_).ok());
  }
  for (uint32_t i = 0; i < kN; ++i) {
    SecAggPeerKeys keys[kK];
    KeysFor(i, keys);
    ASSERT_TRUE(sessions_[i].ShareKeys(keys, drbg_).ok());
  }
  std::byte shared[kBlobBytes];
  const StatusWithSize n = sessions_[2].Serialize(ByteSpan(shared, kBlobBytes));
  ASSERT_TRUE(n.ok());
  SecAggSealed sent[kK];
  const size_t sent_count = sessions_[2].sealed_messages().size();
  ASSERT_EQ(sent_count, kK);
  std::memcpy(sent, sessions_[2].sealed_messages().data(), sizeof(sent));
  SecAggSealed delivered[kK];
  SharesFor(2, delivered);
  // A tampered message: DATA_LOSS, y zeroized, the sealed messages gone
  // (their region held the shares being opened) and no blob to overwrite
  // the stored one; the phase stays.
  SecAggSealed tampered[kK] = {delivered[0], delivered[1]};
  tampered[1].sealed[5] ^= std::byte{1};
  EXPECT_EQ(sessions_[2].MaskInput(tampered, x_[2], drbg_), Status::DataLoss());
  EXPECT_EQ(sessions_[2].phase(), SecAggDevicePhase::kSharesSent);
  EXPECT_TRUE(sessions_[2].sealed_messages().empty());
  EXPECT_TRUE(Zero(arrays_[2].masked));
  std::byte blob[kBlobBytes];
  EXPECT_EQ(sessions_[2].Serialize(ByteSpan(blob, kBlobBytes)).status(),
            Status::FailedPrecondition());
  // The stored blob still resends them byte-identical.
  Arrays twin_arrays;
  uint32_t update[kM];
  std::memcpy(update, x_[2], sizeof(update));
  SecAggSessionBuffers in_place = twin_arrays.buffers();
  in_place.masked = Span<uint32_t>(update, kM);
  SecAggDeviceSession twin(in_place);
  ASSERT_TRUE(twin.Restore(ConstByteSpan(shared, n.size())).ok());
  ASSERT_EQ(twin.sealed_messages().size(), sent_count);
  EXPECT_EQ(std::memcmp(twin.sealed_messages().data(), sent, sizeof(sent)), 0);
  // A retry with the real messages succeeds; the twin masks the caller's
  // update in place and sends the same y.
  ASSERT_TRUE(sessions_[2].MaskInput(delivered, x_[2], drbg_).ok());
  ASSERT_TRUE(
      twin.MaskInput(delivered, Span<const uint32_t>(update, kM), drbg_).ok());
  EXPECT_EQ(twin.masked_input().data(), update);
  EXPECT_TRUE(SameBytes(twin.masked_input(), sessions_[2].masked_input()));
  EXPECT_FALSE(SameBytes(twin.masked_input(), Span<const uint32_t>(x_[2], kM)));
  EXPECT_TRUE(Zero(twin_arrays.neighbours));  // the keys are gone
  // The received shares, now where the sealed messages were, never show
  // through sealed_messages().
  EXPECT_TRUE(twin.sealed_messages().empty());
  EXPECT_FALSE(Zero(twin_arrays.sealed));
}

}  // namespace
}  // namespace edgeadmm
