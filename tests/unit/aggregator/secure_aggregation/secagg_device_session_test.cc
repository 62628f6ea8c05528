// The device's SecAgg+ session (SecAggDeviceSession) against the gateway's
// real SecAggRound, in process: n devices, each persisting its blob in a
// MemoryStorage before every message. The unmasked sum is the plain sum;
// a device rebooted (session destroyed, restored from its stored blob) in
// each phase resends a byte-identical message, which the round accepts as
// a resend (a different one would be ALREADY_EXISTS), and the round ends
// with the same sum; corrupted, truncated or re-signed bad blobs are
// refused with DATA_LOSS and change nothing; a second, different survivor
// list is refused.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "edgeadmm/crc32.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/device_session.h"
#include "edgeadmm/secure_aggregation/secagg_round.h"
#include "gtest/gtest.h"

namespace edgeadmm::secure_aggregation {
namespace {

constexpr size_t kK = 8;
constexpr size_t kM = 24;
constexpr char kKey[] = "secagg";
using Arrays = SecAggSessionArrays<kK, kM>;

template <typename T>
std::vector<std::byte> Bytes(Span<const T> s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return std::vector<std::byte>(p, p + s.size_bytes());
}

// One device: its memory, its storage, its session (re-made on reboot).
struct Device {
  explicit Device(uint64_t seed)
      : arrays(std::make_unique<Arrays>()),
        flash(4 * SecAggSessionBlobBytes(kK, kM)),
        storage(ByteSpan(flash.data(), flash.size())),
        entropy(seed) {
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    session = std::make_unique<SecAggDeviceSession>(arrays->buffers());
  }
  void Persist() {
    std::vector<std::byte> blob(SecAggSessionBlobBytes(kK, kM));
    const StatusWithSize n =
        session->Serialize(ByteSpan(blob.data(), blob.size()));
    ASSERT_TRUE(n.ok());
    ASSERT_TRUE(storage.Write(kKey, ConstByteSpan(blob.data(), n.size())).ok());
  }
  std::vector<std::byte> Stored() {
    std::vector<std::byte> blob(SecAggSessionBlobBytes(kK, kM));
    const StatusWithSize n =
        storage.Read(kKey, ByteSpan(blob.data(), blob.size()));
    EXPECT_TRUE(n.ok());
    blob.resize(n.size());
    return blob;
  }
  // Power loss: the session and its RAM are gone; a new one reads flash.
  void Reboot() {
    session.reset();
    arrays = std::make_unique<Arrays>();
    session = std::make_unique<SecAggDeviceSession>(arrays->buffers());
    const std::vector<std::byte> blob = Stored();
    ASSERT_TRUE(session->Restore(ConstByteSpan(blob.data(), blob.size())).ok());
  }

  std::unique_ptr<Arrays> arrays;
  std::vector<std::byte> flash;
  MemoryStorage storage;
  TestEntropy entropy;
  Drbg drbg;
  std::unique_ptr<SecAggDeviceSession> session;
  std::vector<uint32_t> x;
};

struct Cohort {
  SecAggRoundParams params;
  SecAggRound round;
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<uint32_t> sum;

  Cohort(uint32_t n, uint64_t seed) {
    params.round_id = 7000 + seed;
    params.devices = n;
    params.degree = kK;
    params.threshold = 5;
    params.bits = 20;
    params.mask_length = kM;
    params.min_survivors = n - 2;
    for (size_t b = 0; b < params.graph_seed.size(); ++b) {
      params.graph_seed[b] = static_cast<std::byte>(seed * 31 + b);
    }
    EXPECT_TRUE(round.Init(params).ok());
    for (uint32_t i = 0; i < n; ++i) {
      devices.push_back(std::make_unique<Device>(seed * 1000 + i));
      Device& d = *devices.back();
      for (uint32_t w = 0; w < kM; ++w) {
        d.x.push_back((i * 7919u + w * 104729u + static_cast<uint32_t>(seed)) &
                      0xFFFFFu);
      }
    }
  }

  SecAggSessionParams DeviceParams(uint32_t i) const {
    return SecAggSessionParamsFor(params, i);
  }

  std::vector<uint32_t> PlainSum() const {
    std::vector<uint32_t> s(kM, 0);
    for (const auto& d : devices) {
      for (size_t w = 0; w < kM; ++w) s[w] += d->x[w];
    }
    for (uint32_t& w : s) w &= 0xFFFFFu;
    return s;
  }
};

host::Error SendAdvert(Cohort& r, uint32_t i) {
  const SecAggAdvertisement& a = r.devices[i]->session->advertisement();
  return r.round.Advertise(i, {ConstByteSpan(a.encryption_public, 32),
                               ConstByteSpan(a.mask_public, 32),
                               ConstByteSpan(a.self_seed_commitment, 32)});
}

host::Error SendShares(Cohort& r, uint32_t i) {
  std::vector<SealedShareMessage> out;
  for (const SecAggSealed& s : r.devices[i]->session->sealed_messages()) {
    out.push_back({s.peer, ConstByteSpan(s.sealed, kSealedSharesBytes)});
  }
  return r.round.SubmitShares(
      i, Span<const SealedShareMessage>(out.data(), out.size()));
}

host::Error SendMasked(Cohort& r, uint32_t i) {
  return r.round.SubmitMaskedInput(i, r.devices[i]->session->masked_input());
}

host::Error SendReveal(Cohort& r, uint32_t i) {
  return r.round.SubmitRevealedShares(i,
                                      r.devices[i]->session->revealed_shares());
}

// The bytes of device i's current message in `phase`.
std::vector<std::byte> Message(Cohort& r, uint32_t i, int phase) {
  const SecAggDeviceSession& s = *r.devices[i]->session;
  if (phase == 1) {
    const SecAggAdvertisement& a = s.advertisement();
    return Bytes(Span<const SecAggAdvertisement>(&a, 1));
  }
  if (phase == 2) return Bytes(s.sealed_messages());
  if (phase == 3) return Bytes(s.masked_input());
  return Bytes(s.revealed_shares());
}

// Runs one device phase: the step, the blob to flash, the message; a
// device in `reboots` then loses power, restores and resends.
void DevicePhase(Cohort& r, int phase, const std::vector<uint32_t>& reboots,
                 Status (*step)(Cohort&, uint32_t),
                 host::Error (*send)(Cohort&, uint32_t)) {
  for (uint32_t i = 0; i < r.params.devices; ++i) {
    ASSERT_TRUE(step(r, i).ok()) << "phase " << phase << " device " << i;
    r.devices[i]->Persist();
    const host::Error sent = send(r, i);
    ASSERT_TRUE(sent.ok()) << sent.ToString();
    if (std::find(reboots.begin(), reboots.end(), i) == reboots.end()) continue;
    const std::vector<std::byte> before = Message(r, i, phase);
    r.devices[i]->Reboot();
    EXPECT_EQ(static_cast<int>(r.devices[i]->session->phase()), phase);
    EXPECT_EQ(Message(r, i, phase), before) << "phase " << phase;
    const host::Error again = send(r, i);
    EXPECT_TRUE(again.ok())
        << "resend, phase " << phase << ": " << again.ToString();
  }
}

Status StepAdvertise(Cohort& r, uint32_t i) {
  Device& d = *r.devices[i];
  return d.session->Advertise(r.DeviceParams(i), d.drbg);
}

Status StepShare(Cohort& r, uint32_t i) {
  auto keys = r.round.NeighbourKeys(i);
  if (!keys.ok()) return keys.status();
  std::vector<SecAggPeerKeys> in(keys->size());
  for (size_t a = 0; a < in.size(); ++a) {
    in[a].device = (*keys)[a].device;
    std::memcpy(in[a].encryption_public, (*keys)[a].encryption_public.data(),
                32);
    std::memcpy(in[a].mask_public, (*keys)[a].mask_public.data(), 32);
  }
  Device& d = *r.devices[i];
  return d.session->ShareKeys(Span<const SecAggPeerKeys>(in.data(), in.size()),
                              d.drbg);
}

Status StepMask(Cohort& r, uint32_t i) {
  auto delivered = r.round.SharesFor(i);
  if (!delivered.ok()) return delivered.status();
  std::vector<SecAggSealed> in(delivered->size());
  for (size_t a = 0; a < in.size(); ++a) {
    in[a].peer = (*delivered)[a].sender;
    std::memcpy(in[a].sealed, (*delivered)[a].sealed.data(),
                kSealedSharesBytes);
  }
  Device& d = *r.devices[i];
  return d.session->MaskInput(Span<const SecAggSealed>(in.data(), in.size()),
                              Span<const uint32_t>(d.x.data(), d.x.size()),
                              d.drbg);
}

// Phase 3's answer to device i, as the gateway sends it.
SurvivorAnswer AnswerOf(const NeighbourhoodSurvivors& s) {
  SurvivorAnswer a;
  a.survivors = s.survivors;
  a.listed = Span<const uint32_t>(s.listed.data(), s.listed.size());
  return a;
}

Status StepReveal(Cohort& r, uint32_t i) {
  auto survivors = r.round.SurvivorsFor(i);
  if (!survivors.ok()) return survivors.status();
  return r.devices[i]->session->Reveal(AnswerOf(*survivors));
}

// A whole round; devices in reboots[p] reboot after sending phase p.
void RunRound(Cohort& r, const std::vector<uint32_t> (&reboots)[5]) {
  DevicePhase(r, 1, reboots[1], StepAdvertise, SendAdvert);
  ASSERT_TRUE(r.round.CloseAdvertise().ok());
  DevicePhase(r, 2, reboots[2], StepShare, SendShares);
  ASSERT_TRUE(r.round.CloseShareKeys().ok());
  DevicePhase(r, 3, reboots[3], StepMask, SendMasked);
  ASSERT_TRUE(r.round.CloseMaskedInput().ok());
  DevicePhase(r, 4, reboots[4], StepReveal, SendReveal);
  Drbg& drbg = r.devices[0]->drbg;
  auto sum = r.round.CloseUnmasking(drbg);
  ASSERT_TRUE(sum.ok()) << sum.error().ToString();
  r.sum = sum.value();
  for (auto& d : r.devices) d->session->Finish();
}

TEST(SecAggDeviceSessionTest, SessionsGiveThePlainSum) {
  Cohort r(16, 1);
  RunRound(r, {});
  EXPECT_EQ(r.sum, r.PlainSum());
  // Not the sum without device 0 (a comparison that can fail).
  std::vector<uint32_t> partial = r.PlainSum();
  for (size_t w = 0; w < kM; ++w) {
    partial[w] = (partial[w] - r.devices[0]->x[w]) & 0xFFFFFu;
  }
  EXPECT_NE(r.sum, partial);
  EXPECT_EQ(r.devices[3]->session->phase(), SecAggDevicePhase::kDone);
}

TEST(SecAggDeviceSessionTest, RebootInEveryPhaseResendsAndGivesTheSameSum) {
  Cohort plain(16, 2);
  RunRound(plain, {});
  // The same round (same seeds) with devices rebooting in each phase.
  Cohort r(16, 2);
  const std::vector<uint32_t> reboots[5] = {{}, {0, 5}, {1, 5}, {2, 5}, {3, 5}};
  RunRound(r, reboots);
  EXPECT_EQ(r.sum, r.PlainSum());
  EXPECT_EQ(r.sum, plain.sum);
}

// A session in kMaskedSent, and the blobs of every phase of device 0.
struct Blobs {
  Cohort run{12, 3};
  std::vector<std::byte> of_phase[5];
  NeighbourhoodSurvivors survivors;       // device 1's answer in phase 3
  std::vector<std::byte> device1_masked;  // device 1's phase-3 blob
  Blobs() {
    auto keep = [&](int p) {
      for (auto& d : run.devices) d->Persist();
      of_phase[p] = run.devices[0]->Stored();
    };
    for (uint32_t i = 0; i < 12; ++i) EXPECT_TRUE(StepAdvertise(run, i).ok());
    keep(1);
    for (uint32_t i = 0; i < 12; ++i) EXPECT_TRUE(SendAdvert(run, i).ok());
    EXPECT_TRUE(run.round.CloseAdvertise().ok());
    for (uint32_t i = 0; i < 12; ++i) EXPECT_TRUE(StepShare(run, i).ok());
    keep(2);
    for (uint32_t i = 0; i < 12; ++i) EXPECT_TRUE(SendShares(run, i).ok());
    EXPECT_TRUE(run.round.CloseShareKeys().ok());
    for (uint32_t i = 0; i < 12; ++i) EXPECT_TRUE(StepMask(run, i).ok());
    keep(3);
    device1_masked = run.devices[1]->Stored();
    for (uint32_t i = 0; i < 12; ++i) EXPECT_TRUE(SendMasked(run, i).ok());
    EXPECT_TRUE(run.round.CloseMaskedInput().ok());
    survivors = run.round.SurvivorsFor(1).value();
    EXPECT_TRUE(StepReveal(run, 1).ok());
    run.devices[1]->Persist();
    of_phase[4] = run.devices[1]->Stored();
  }
};

TEST(SecAggDeviceSessionTest,
     CorruptOrTruncatedBlobIsRefusedAndChangesNothing) {
  Blobs b;
  Device& d = *b.run.devices[0];  // in kMaskedSent
  const std::vector<std::byte> own = d.Stored();
  for (int p = 1; p <= 4; ++p) {
    std::vector<std::byte> blob = b.of_phase[p];
    ASSERT_FALSE(blob.empty());
    for (size_t at = 0; at < blob.size(); ++at) {
      for (int bit = 0; bit < 8; bit += 3) {
        blob[at] ^= std::byte{static_cast<uint8_t>(1u << bit)};
        EXPECT_EQ(d.session->Restore(ConstByteSpan(blob.data(), blob.size())),
                  Status::DataLoss())
            << "phase " << p << " byte " << at;
        blob[at] ^= std::byte{static_cast<uint8_t>(1u << bit)};
      }
    }
    for (size_t len = 0; len < blob.size(); ++len) {
      EXPECT_EQ(d.session->Restore(ConstByteSpan(blob.data(), len)),
                Status::DataLoss())
          << "phase " << p << " length " << len;
    }
    blob.push_back(std::byte{0});
    EXPECT_EQ(d.session->Restore(ConstByteSpan(blob.data(), blob.size())),
              Status::DataLoss());
  }
  // A wrong field under a valid CRC: phase 9, a threshold above k, and
  // (after the header, 76 B, and the keys, 192 B) 200 peers for k = 8.
  for (size_t field : {6u, 24u, 268u}) {
    std::vector<std::byte> blob = b.of_phase[2];
    blob[field] =
        static_cast<std::byte>(field == 6u ? 9 : 109 + 91 * (field == 268u));
    const uint32_t crc = Crc32(ConstByteSpan(blob.data(), blob.size() - 4));
    for (int i = 0; i < 4; ++i) {
      blob[blob.size() - 4 + i] = static_cast<std::byte>(crc >> (8 * i));
    }
    EXPECT_EQ(d.session->Restore(ConstByteSpan(blob.data(), blob.size())),
              Status::DataLoss())
        << "field at " << field;
  }
  // Nothing changed: same phase, same blob, and the session goes on.
  EXPECT_EQ(d.session->phase(), SecAggDevicePhase::kMaskedSent);
  std::vector<std::byte> now(own.size() + 16);
  const StatusWithSize n =
      d.session->Serialize(ByteSpan(now.data(), now.size()));
  ASSERT_TRUE(n.ok());
  now.resize(n.size());
  EXPECT_EQ(now, own);
  EXPECT_TRUE(
      d.session->Reveal(AnswerOf(b.run.round.SurvivorsFor(0).value())).ok());
  // And every intact blob restores.
  for (int p = 1; p <= 4; ++p) {
    const std::vector<std::byte>& blob = b.of_phase[p];
    Arrays fresh;
    SecAggDeviceSession s(fresh.buffers());
    EXPECT_TRUE(s.Restore(ConstByteSpan(blob.data(), blob.size())).ok());
    EXPECT_EQ(static_cast<int>(s.phase()), p);
  }
}

TEST(SecAggDeviceSessionTest, SecondDifferentSurvivorListIsRefused) {
  Blobs b;
  Device& d = *b.run.devices[1];  // answered b.survivors
  const std::vector<std::byte> answer = Message(b.run, 1, 4);
  ASSERT_FALSE(answer.empty());
  NeighbourhoodSurvivors fewer = b.survivors;
  fewer.listed.erase(
      std::find(fewer.listed.begin(), fewer.listed.end(),
                b.run.devices[1]->session->revealed_shares()[0].sender));
  const SurvivorAnswer same = AnswerOf(b.survivors);
  const SurvivorAnswer other = AnswerOf(fewer);
  EXPECT_EQ(d.session->Reveal(other), Status::AlreadyExists());
  EXPECT_EQ(d.session->Reveal(same), Status::Ok());
  EXPECT_EQ(Message(b.run, 1, 4), answer);
  // After a reboot too.
  d.Reboot();
  EXPECT_EQ(d.session->Reveal(other), Status::AlreadyExists());
  EXPECT_EQ(d.session->Reveal(same), Status::Ok());
  EXPECT_EQ(Message(b.run, 1, 4), answer);
  // The other list, answered first, gives another answer: the refusal
  // keeps a second set of shares from leaving.
  Arrays fresh;
  SecAggDeviceSession s(fresh.buffers());
  ASSERT_TRUE(
      s.Restore(ConstByteSpan(b.device1_masked.data(), b.device1_masked.size()))
          .ok());
  ASSERT_TRUE(s.Reveal(other).ok());
  EXPECT_NE(Bytes(s.revealed_shares()), answer);
  EXPECT_EQ(s.Reveal(same), Status::AlreadyExists());
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation
