// The SecAgg+ phase frames (phase_frames.h): each frame round-trips, and
// every decoder refuses another version or phase, a truncated or extended
// frame, a count above the caller's capacity and, in phase 4, a kind
// other than 0 or 1; phase 0's frame (the round's parameters) round-trips
// and both its encoder and decoder refuse every parameter out of range.
#include "edgeadmm/secagg/phase_frames.h"

#include <cstring>
#include <initializer_list>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

// A frame buffer without heap (the test also runs on the MCU).
struct Buf {
  explicit Buf(size_t size) : n(size) {}
  std::byte* data() { return d; }
  const std::byte* data() const { return d; }
  size_t size() const { return n; }
  std::byte& operator[](size_t i) { return d[i]; }
  void push_back(std::byte b) { d[n++] = b; }
  void resize(size_t size) { n = size; }
  std::byte d[512] = {};
  size_t n = 0;
};

Buf Encoded(StatusWithSize (*encode)(uint64_t, Span<const uint32_t>, ByteSpan),
            Span<const uint32_t> words) {
  Buf out(SecAggWordsBytes(words.size()));
  const StatusWithSize n = encode(9, words, ByteSpan(out.data(), out.size()));
  EXPECT_TRUE(n.ok());
  out.resize(n.size());
  return out;
}

TEST(SecAggPhaseFramesTest, AdvertiseRoundTripsAndRefusesOtherShapes) {
  SecAggAdvertisement a;
  for (size_t i = 0; i < kX25519KeyBytes; ++i) {
    a.encryption_public[i] = std::byte(i);
    a.mask_public[i] = std::byte(100 + i);
  }
  a.self_seed_commitment[3] = std::byte{7};
  Buf f(SecAggAdvertiseBytes());
  ASSERT_EQ(EncodeSecAggAdvertise(5, a, ByteSpan(f.data(), f.size())).size(),
            f.size());
  SecAggFrameHeader h;
  SecAggAdvertisement b;
  ASSERT_TRUE(
      DecodeSecAggAdvertise(ConstByteSpan(f.data(), f.size()), h, b).ok());
  EXPECT_EQ(h.round_id, 5u);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof(a)), 0);
  EXPECT_FALSE(
      DecodeSecAggAdvertise(ConstByteSpan(f.data(), f.size() - 1), h, b).ok());
  Buf longer = f;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(
      DecodeSecAggAdvertise(ConstByteSpan(longer.data(), longer.size()), h, b)
          .ok());
  Buf v1 = f;  // the version before phase 3's answer was per device
  v1[0] = std::byte{1};
  EXPECT_FALSE(
      DecodeSecAggAdvertise(ConstByteSpan(v1.data(), v1.size()), h, b).ok());
  Buf p2 = f;
  p2[1] = std::byte{2};
  EXPECT_FALSE(
      DecodeSecAggAdvertise(ConstByteSpan(p2.data(), p2.size()), h, b).ok());
  Buf p9 = f;
  p9[1] = std::byte{9};
  EXPECT_FALSE(DecodeSecAggHeader(ConstByteSpan(p9.data(), p9.size()), h).ok());
  std::byte small[8];
  EXPECT_EQ(EncodeSecAggAdvertise(5, a, small).status(),
            Status::ResourceExhausted());
}

TEST(SecAggPhaseFramesTest, WordsRoundTripWithinCapacityOnly) {
  const uint32_t words[] = {1, 0xfffff, 77};
  const Buf f = Encoded(&EncodeSecAggWords, words);
  SecAggFrameHeader h;
  uint32_t out[3] = {};
  const StatusWithSize n =
      DecodeSecAggWords(ConstByteSpan(f.data(), f.size()), h, out);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.size(), 3u);
  EXPECT_EQ(out[1], 0xfffffu);
  EXPECT_EQ(h.phase, 3);
  uint32_t two[2] = {};
  EXPECT_FALSE(
      DecodeSecAggWords(ConstByteSpan(f.data(), f.size()), h, two).ok());
  Buf bad_count = f;
  bad_count[10] = std::byte{4};  // count 4, three words
  EXPECT_FALSE(DecodeSecAggWords(
                   ConstByteSpan(bad_count.data(), bad_count.size()), h, out)
                   .ok());
}

// Phase 3's answer: the listed survivors and the count in all after them;
// a list beyond the capacity, a frame one word short or long, or a phase 3
// request in its place are refused (the content is SelectRevealedShares'
// to check).
TEST(SecAggPhaseFramesTest, SurvivorsRoundTripWithinCapacityOnly) {
  const uint32_t listed[] = {4, 9, 31};
  SurvivorAnswer answer;
  answer.survivors = 32561;
  answer.listed = listed;
  Buf f(SecAggSurvivorsBytes(3));
  ASSERT_EQ(
      EncodeSecAggSurvivors(6, answer, ByteSpan(f.data(), f.size())).size(),
      f.size());
  EXPECT_EQ(f.size(), 10u + 2 + 3 * 4 + 4);
  SecAggFrameHeader h;
  uint32_t survivors = 0;
  uint32_t out[3] = {};
  const StatusWithSize n = DecodeSecAggSurvivors(
      ConstByteSpan(f.data(), f.size()), h, survivors, out);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.size(), 3u);
  EXPECT_EQ(h.phase, 3);
  EXPECT_EQ(h.round_id, 6u);
  EXPECT_EQ(survivors, 32561u);
  EXPECT_EQ(out[2], 31u);
  uint32_t two[2] = {};
  EXPECT_FALSE(DecodeSecAggSurvivors(ConstByteSpan(f.data(), f.size()), h,
                                     survivors, two)
                   .ok());
  EXPECT_FALSE(DecodeSecAggSurvivors(ConstByteSpan(f.data(), f.size() - 4), h,
                                     survivors, out)
                   .ok());
  Buf longer = f;
  for (int i = 0; i < 4; ++i) longer.push_back(std::byte{0});
  EXPECT_FALSE(
      DecodeSecAggSurvivors(ConstByteSpan(longer.data(), longer.size()), h,
                            survivors, out)
          .ok());
  const Buf request = Encoded(&EncodeSecAggWords, listed);
  EXPECT_FALSE(
      DecodeSecAggSurvivors(ConstByteSpan(request.data(), request.size()), h,
                            survivors, out)
          .ok());
  answer.survivors = 3;
  std::byte small[20];
  EXPECT_EQ(EncodeSecAggSurvivors(6, answer, small).status(),
            Status::ResourceExhausted());
}

TEST(SecAggPhaseFramesTest, SealedAndKeysRoundTrip) {
  SecAggSealed s[2];
  s[0].peer = 3;
  s[1].peer = 8;
  s[1].sealed[81] = std::byte{0x5a};
  Buf f(SecAggSealedBytes(2));
  ASSERT_TRUE(EncodeSecAggSealed(1, s, ByteSpan(f.data(), f.size())).ok());
  SecAggFrameHeader h;
  SecAggSealed back[2];
  const StatusWithSize n =
      DecodeSecAggSealed(ConstByteSpan(f.data(), f.size()), h, back);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(back[1].peer, 8u);
  EXPECT_EQ(back[1].sealed[81], std::byte{0x5a});
  SecAggPeerKeys k[1];
  EXPECT_FALSE(DecodeSecAggKeys(ConstByteSpan(f.data(), f.size()), h, k).ok());
  k[0].device = 4;
  k[0].mask_public[31] = std::byte{1};
  Buf g(SecAggKeysAnswerBytes(1));
  ASSERT_TRUE(EncodeSecAggKeys(1, k, ByteSpan(g.data(), g.size())).ok());
  SecAggPeerKeys kb[1];
  ASSERT_TRUE(DecodeSecAggKeys(ConstByteSpan(g.data(), g.size()), h, kb).ok());
  EXPECT_EQ(kb[0].device, 4u);
  EXPECT_EQ(kb[0].mask_public[31], std::byte{1});
}

TEST(SecAggPhaseFramesTest, RevealRefusesAnUnknownKind) {
  RevealedShare r[1];
  r[0].sender = 2;
  r[0].self_seed = true;
  r[0].share.index = 4;
  Buf f(SecAggRevealBytes(1));
  ASSERT_TRUE(EncodeSecAggReveal(1, r, ByteSpan(f.data(), f.size())).ok());
  SecAggFrameHeader h;
  RevealedShare back[1];
  ASSERT_TRUE(
      DecodeSecAggReveal(ConstByteSpan(f.data(), f.size()), h, back).ok());
  EXPECT_TRUE(back[0].self_seed);
  EXPECT_EQ(back[0].share.index, 4);
  f[12 + 4] = std::byte{2};  // the kind byte
  EXPECT_FALSE(
      DecodeSecAggReveal(ConstByteSpan(f.data(), f.size()), h, back).ok());
}

SecAggSessionParams RoundParams() {
  SecAggSessionParams p;
  p.round_id = 0x0102030405060708u;
  p.devices = 10;
  p.degree = 6;
  p.threshold = 4;
  p.bits = 20;
  p.mask_length = 16;
  p.min_survivors = 7;
  p.own_index = 3;
  for (size_t b = 0; b < kGraphSeedBytes; ++b) p.graph_seed[b] = std::byte(b);
  return p;
}

// Field by field (the struct has padding).
bool Same(const SecAggSessionParams& a, const SecAggSessionParams& b) {
  return a.round_id == b.round_id && a.devices == b.devices &&
         a.degree == b.degree && a.threshold == b.threshold &&
         a.bits == b.bits && a.mask_length == b.mask_length &&
         a.min_survivors == b.min_survivors && a.own_index == b.own_index &&
         std::memcmp(a.graph_seed, b.graph_seed, kGraphSeedBytes) == 0;
}

Buf EncodedRound(const SecAggSessionParams& p) {
  Buf f(SecAggRoundBytes());
  EXPECT_EQ(EncodeSecAggRound(p, ByteSpan(f.data(), f.size())).size(),
            f.size());
  return f;
}

// Phase 0's path names the round in decimal, without leading zeros, up to
// 2^64 - 1; the id is the task's job id above its round id's low 32 bits.
TEST(SecAggPhaseFramesTest, RoundPathNamesTheRoundInDecimal) {
  char path[kMaxSecAggRoundPathBytes];
  const struct {
    uint64_t id;
    const char* expected;
  } cases[] = {
      {1, "v1/secagg/round?round=1"},
      {9, "v1/secagg/round?round=9"},
      {10, "v1/secagg/round?round=10"},
      {4294967301u, "v1/secagg/round?round=4294967301"},
      {10000000000000000000u, "v1/secagg/round?round=10000000000000000000"},
      {18446744073709551615u, "v1/secagg/round?round=18446744073709551615"},
  };
  for (const auto& c : cases) {
    FormatSecAggRoundPath(c.id, path);
    EXPECT_STREQ(path, c.expected);
  }
  EXPECT_EQ(std::strlen(path) + 1, sizeof(path));  // the longest fits
  EXPECT_EQ(SecAggRoundId(1, 5), 4294967301u);
  EXPECT_EQ(SecAggRoundId(3, (uint64_t{7} << 32) | 2), (uint64_t{3} << 32) | 2);
}

// A poll is the header alone, for phases 1..3 (phase 4 has no answer to
// wait for).
TEST(SecAggPhaseFramesTest, PollIsTheHeaderAlone) {
  std::byte out[kSecAggFrameHeaderBytes];
  for (uint8_t phase = 1; phase <= 3; ++phase) {
    const StatusWithSize n = EncodeSecAggPoll(phase, 99, ByteSpan(out, 10));
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(n.size(), kSecAggFrameHeaderBytes);
    SecAggFrameHeader h;
    ASSERT_TRUE(DecodeSecAggHeader(ConstByteSpan(out, n.size()), h).ok());
    EXPECT_EQ(h.phase, phase);
    EXPECT_EQ(h.round_id, 99u);
  }
  for (uint8_t phase : {0, 4}) {
    EXPECT_EQ(EncodeSecAggPoll(phase, 99, ByteSpan(out, 10)).status(),
              Status::InvalidArgument());
  }
  EXPECT_EQ(EncodeSecAggPoll(1, 99, ByteSpan(out, 9)).status(),
            Status::ResourceExhausted());
}

TEST(SecAggPhaseFramesTest, RoundRoundTripsAndRefusesOtherShapes) {
  const SecAggSessionParams p = RoundParams();
  const Buf f = EncodedRound(p);
  EXPECT_EQ(f.size(), 70u);
  SecAggSessionParams q;
  ASSERT_TRUE(DecodeSecAggRound(ConstByteSpan(f.data(), f.size()), q).ok());
  EXPECT_TRUE(Same(p, q));
  // Not a frame of phases 1..4.
  SecAggFrameHeader h;
  EXPECT_FALSE(DecodeSecAggHeader(ConstByteSpan(f.data(), f.size()), h).ok());
  const SecAggSessionParams untouched;
  Buf shorter = f;
  shorter.resize(f.size() - 1);
  Buf longer = f;
  longer.push_back(std::byte{0});
  Buf v1 = f;
  v1[0] = std::byte{1};
  Buf p1 = f;
  p1[1] = std::byte{1};
  for (const Buf* b : {&shorter, &longer, &v1, &p1}) {
    SecAggSessionParams r;
    EXPECT_EQ(DecodeSecAggRound(ConstByteSpan(b->data(), b->size()), r),
              Status::InvalidArgument());
    EXPECT_TRUE(Same(r, untouched));
  }
  std::byte small[SecAggRoundBytes() - 1];
  EXPECT_EQ(EncodeSecAggRound(p, small).status(), Status::ResourceExhausted());
}

// Fields of SecAggSessionParams by their place in phase 0's frame.
uint32_t& Field(SecAggSessionParams& p, size_t i) {
  uint32_t* const f[] = {&p.devices,  &p.degree,      &p.threshold,
                         &p.bits,     &p.mask_length, &p.min_survivors,
                         &p.own_index};
  return *f[i];
}

struct Change {
  size_t field;
  uint32_t value;
};
enum : size_t { kN, kK, kS, kB, kM, kFloor, kOwn };

TEST(SecAggPhaseFramesTest, RoundRefusesEveryParameterOutOfRange) {
  struct Case {
    const char* what;
    Change changes[4];
    size_t count;
    bool valid;
  };
  const Case cases[] = {
      {"n 1", {{kN, 1}, {kFloor, 1}, {kOwn, 0}}, 3, false},
      {"k 0", {{kK, 0}}, 1, false},
      {"k odd, not complete", {{kK, 5}}, 1, false},
      {"k above the largest", {{kN, 1000}, {kK, 256}}, 2, false},
      {"k at the largest", {{kN, 1000}, {kK, 254}}, 2, true},
      {"k odd, complete", {{kN, 4}, {kK, 3}, {kS, 3}, {kFloor, 4}}, 4, true},
      {"s 1", {{kS, 1}}, 1, false},
      {"s = k", {{kS, 6}}, 1, true},
      {"s above k", {{kS, 7}}, 1, false},
      {"s above n - 1", {{kN, 5}, {kS, 5}, {kFloor, 5}}, 3, false},
      {"b 0", {{kB, 0}}, 1, false},
      {"b 32", {{kB, 32}}, 1, true},
      {"b 33", {{kB, 33}}, 1, false},
      {"m 0", {{kM, 0}}, 1, false},
      {"floor 0", {{kFloor, 0}}, 1, false},
      {"floor n", {{kFloor, 10}}, 1, true},
      {"floor above n", {{kFloor, 11}}, 1, false},
      {"own index n - 1", {{kOwn, 9}}, 1, true},
      {"own index n", {{kOwn, 10}}, 1, false},
  };
  const Buf valid = EncodedRound(RoundParams());
  for (const Case& c : cases) {
    SecAggSessionParams p = RoundParams();
    Buf f = valid;
    for (size_t i = 0; i < c.count; ++i) {
      Field(p, c.changes[i].field) = c.changes[i].value;
      for (size_t b = 0; b < 4; ++b) {
        f[10 + 4 * c.changes[i].field + b] =
            std::byte((c.changes[i].value >> (8 * b)) & 0xff);
      }
    }
    Buf out(SecAggRoundBytes());
    EXPECT_EQ(EncodeSecAggRound(p, ByteSpan(out.data(), out.size())).ok(),
              c.valid)
        << c.what;
    SecAggSessionParams r;
    const Status s = DecodeSecAggRound(ConstByteSpan(f.data(), f.size()), r);
    EXPECT_EQ(s.ok(), c.valid) << c.what;
    if (!c.valid) {
      EXPECT_EQ(s, Status::InvalidArgument()) << c.what;
      EXPECT_EQ(r.devices, 0u) << c.what;  // left unchanged
    } else {
      EXPECT_TRUE(Same(p, r)) << c.what;
    }
  }
}

}  // namespace
}  // namespace edgeadmm
