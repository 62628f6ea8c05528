// SecAggService (the v1/secagg/* resources without sockets): phase 0
// answers each identity of the cohort the round's parameters with its own
// index, and refuses an identity outside it (4.03), no round (4.04) and a
// round whose phase 1 closed (4.12). Six devices
// running SecAggDeviceSession post their frames through Handle; every
// resource refuses a malformed body, a frame of another phase, a frame
// for a phase not open, a replay that differs from the accepted message,
// a different message in an open phase, another round, an oversized body
// and a device outside the cohort, each with its documented code, and an
// identical resend after the phase closed gets the phase's answer, as does
// a poll (the header alone) from a device whose message was accepted. The sum
// is the plain sum; a device missing a phase's deadline is a dropout.
#include "edgeadmm/server/secagg_service.h"

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/wire/coap_code.h"
#include "gtest/gtest.h"
#include "secagg_session_devices.h"

namespace edgeadmm::server {
namespace {

using secure_aggregation::SecAggPhase;
constexpr uint32_t kN = 6;
constexpr size_t kK = 4;
constexpr size_t kM = 4;
constexpr uint32_t kBits = 16;
constexpr int64_t kPhaseMs = 1000;
using Devices = testing::SecAggSessionDevices<kK, kM, kN>;
using Bytes = Devices::Bytes;

class SecAggServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
    params_.round_id = 77;
    params_.devices = kN;
    params_.degree = kK;
    params_.threshold = 3;
    params_.bits = kBits;
    params_.mask_length = kM;
    params_.min_survivors = 5;
    params_.graph_seed[0] = std::byte{9};
    std::vector<std::string> ids;
    for (uint32_t i = 0; i < kN; ++i) {
      ids.push_back("dev-" + std::to_string(i));
      std::vector<uint32_t> x;
      for (uint32_t w = 0; w < kM; ++w) {
        x.push_back((i * 401 + w * 97) & 0xffff);
      }
      SecAggSessionParams s;
      s.round_id = 77;
      s.devices = kN;
      s.degree = kK;
      s.threshold = 3;
      s.bits = kBits;
      s.mask_length = kM;
      s.min_survivors = 5;
      s.own_index = i;
      s.graph_seed[0] = std::byte{9};
      devices_.Join(ids.back(), s, std::move(x), 50 + i);
    }
    ids_ = ids;
    ASSERT_TRUE(service_.Start(params_, ids, kPhaseMs, now_, drbg_).ok());
  }

  Response Post(int phase, uint32_t device, const Bytes& b) {
    return Post(phase, "dev-" + std::to_string(device), b);
  }
  Response Post(int phase, const std::string& id, const Bytes& b) {
    return svc_->Handle(phase, id, reinterpret_cast<const uint8_t*>(b.data()),
                        b.size(), now_);
  }
  Bytes Message(uint32_t i) { return devices_.Message(i); }
  void Take(uint32_t i, const Response& r) { devices_.Take(i, r); }
  // Every device in `who` posts phase `phase` to the serving service.
  void Phase(int phase, const std::vector<uint32_t>& who) {
    devices_.Phase(*svc_, phase, who, now_);
  }
  std::vector<uint32_t> All() const { return {0, 1, 2, 3, 4, 5}; }
  // Restarts the round with a round log (its path returned, under the
  // test's temporary directory) and runs phases 1 and 2 with every device.
  std::string StartLoggedRound(const std::string& name) {
    const std::string path = ::testing::TempDir() + "/" + name +
                             std::to_string(reinterpret_cast<uintptr_t>(this)) +
                             ".bin";
    service_.set_log_path(path);
    EXPECT_TRUE(service_.Start(params_, ids_, kPhaseMs, now_, drbg_).ok());
    Phase(1, All());
    Phase(2, All());
    return path;
  }
  // StartLoggedRound, then phase 3 closes at its deadline with devices
  // 0..4's masked inputs (device 5 missed it): the log holds the close.
  std::string LogPhaseThreeClose(const std::string& name) {
    const std::string path = StartLoggedRound(name);
    for (uint32_t i = 0; i < 5; ++i) {
      EXPECT_EQ(Post(3, i, Message(i)).code, wire::kCoapChanged);
    }
    now_ += kPhaseMs;
    service_.Tick(now_);
    EXPECT_EQ(service_.phase(), SecAggPhase::kUnmasking);
    return path;
  }
  std::vector<uint32_t> PlainSum(const std::vector<uint32_t>& who) const {
    std::vector<uint32_t> sum(kM, 0);
    for (uint32_t i : who) {
      for (size_t w = 0; w < kM; ++w) {
        sum[w] = (sum[w] + devices_.dev(i).x[w]) & 0xffff;
      }
    }
    return sum;
  }

  TestEntropy entropy_{3};
  Drbg drbg_;
  secure_aggregation::SecAggRoundParams params_;
  Devices devices_;
  SecAggService service_;
  SecAggService* svc_ = &service_;  // the one serving (after a restart)
  std::vector<std::string> ids_;
  int64_t now_ = 1000;
};

TEST_F(SecAggServiceTest, RoundAnswersEachDeviceItsIndexWhilePhaseOneIsOpen) {
  for (uint32_t i = 0; i < kN; ++i) {
    const Response r = service_.Round("dev-" + std::to_string(i));
    ASSERT_EQ(r.code, wire::kCoapContent) << i;
    EXPECT_EQ(r.content_format, kSecAggFrameFormat);
    SecAggSessionParams p;
    ASSERT_TRUE(
        DecodeSecAggRound(
            ConstByteSpan(reinterpret_cast<const std::byte*>(r.body.data()),
                          r.body.size()),
            p)
            .ok());
    EXPECT_EQ(p.own_index, i);
    EXPECT_EQ(p.round_id, 77u);
    EXPECT_EQ(p.devices, kN);
    EXPECT_EQ(p.degree, kK);
    EXPECT_EQ(p.threshold, 3u);
    EXPECT_EQ(p.bits, kBits);
    EXPECT_EQ(p.mask_length, kM);
    EXPECT_EQ(p.min_survivors, 5u);
    EXPECT_EQ(
        std::memcmp(p.graph_seed, params_.graph_seed.data(), kGraphSeedBytes),
        0);
  }
  EXPECT_EQ(service_.Round("dev-6").code, wire::kCoapForbidden);
  EXPECT_EQ(service_.Round("").code, wire::kCoapForbidden);
  SecAggService none;
  EXPECT_EQ(none.Round("dev-0").code, wire::kCoapNotFound);
  Phase(1, All());
  EXPECT_EQ(service_.Round("dev-0").code, wire::kCoapPreconditionFailed);
  EXPECT_EQ(service_.Round("dev-6").code, wire::kCoapForbidden);
}

TEST_F(SecAggServiceTest, WholeRoundGivesThePlainSum) {
  for (int phase = 1; phase <= 4; ++phase) Phase(phase, All());
  ASSERT_TRUE(service_.sum().has_value());
  EXPECT_EQ(*service_.sum(), PlainSum(All()));
  EXPECT_TRUE(service_.round()->stored().empty());
  // A phase-4 resend after the end: accepted again, nothing else.
  EXPECT_EQ(Post(4, 2, Message(2)).code, wire::kCoapChanged);
}

TEST_F(SecAggServiceTest, RefusalsOfEveryResource) {
  const Bytes advert = Message(0);
  for (int phase = 1; phase <= 4; ++phase) {
    // Outside the cohort, a frame of another phase (phase 1's header for
    // the others), a truncated frame, an oversized body.
    EXPECT_EQ(Post(phase, "stranger", advert).code, wire::kCoapForbidden);
    const Bytes other =
        phase == 1 ? Devices::Frame(SecAggWordsBytes(1),
                                    [](ByteSpan o) {
                                      const uint32_t w[1] = {1};
                                      return EncodeSecAggWords(77, w, o);
                                    })
                   : Bytes(advert.begin(), advert.begin() + 10);
    EXPECT_EQ(Post(phase, 0, other).code, wire::kCoapBadRequest) << phase;
    EXPECT_EQ(Post(phase, 0, Bytes(advert.begin(), advert.begin() + 9)).code,
              wire::kCoapBadRequest);
    EXPECT_EQ(Post(phase, 0, Bytes(service_.MaxBody(phase) + 1)).code,
              wire::kCoapRequestEntityTooLarge);
  }
  // Another round; a phase not open yet.
  Bytes other_round = advert;
  other_round[2] = std::byte{78};
  EXPECT_EQ(Post(1, 0, other_round).code, wire::kCoapNotFound);
  const Bytes empty_shares =
      Devices::Frame(SecAggSealedBytes(0), [](ByteSpan o) {
        return EncodeSecAggSealed(77, Span<const SecAggSealed>(), o);
      });
  EXPECT_EQ(Post(2, 0, empty_shares).code, wire::kCoapPreconditionFailed);
  // Accepted, resent identically (2.04), then changed in the open phase.
  EXPECT_EQ(Post(1, 0, advert).code, wire::kCoapChanged);
  EXPECT_EQ(Post(1, 0, advert).code, wire::kCoapChanged);
  Bytes changed = advert;
  changed[20] ^= std::byte{1};
  EXPECT_EQ(Post(1, 0, changed).code, wire::kCoapConflict);
  Phase(1, {1, 2, 3, 4, 5});
  Take(0, Post(1, 0, advert));  // identical resend after the close: answer
  // A replay that differs after the close: the phase is closed.
  EXPECT_EQ(Post(1, 0, changed).code, wire::kCoapPreconditionFailed);
  // Phase 3 content: a word >= 2^b.
  Phase(2, All());
  const Bytes too_wide = Devices::Frame(SecAggWordsBytes(kM), [](ByteSpan o) {
    const uint32_t w[kM] = {1u << kBits, 0, 0, 0};
    return EncodeSecAggWords(77, w, o);
  });
  EXPECT_EQ(Post(3, 0, too_wide).code, wire::kCoapBadRequest);
  Phase(3, All());
  // Phase 4: a share kind that is neither seed nor key.
  Bytes bad_kind = Message(0);
  bad_kind[12 + 4] = std::byte{7};
  EXPECT_EQ(Post(4, 0, bad_kind).code, wire::kCoapBadRequest);
  Phase(4, All());
  ASSERT_TRUE(service_.sum().has_value());
  EXPECT_EQ(*service_.sum(), PlainSum(All()));
}

// A poll (the frame's header alone, EncodeSecAggPoll) is answered as an
// identical resend of the device's accepted message: 2.04 while the phase
// is open, the phase's answer after it closed, and 4.12 from a device
// whose message the phase has not accepted.
TEST_F(SecAggServiceTest, PollIsAnsweredAsTheAcceptedMessage) {
  const auto poll = [](int phase) {
    return Devices::Frame(kSecAggFrameHeaderBytes, [phase](ByteSpan o) {
      return EncodeSecAggPoll(static_cast<uint8_t>(phase), 77, o);
    });
  };
  EXPECT_EQ(Post(1, 0, poll(1)).code, wire::kCoapPreconditionFailed);
  const Bytes advert = Message(0);
  EXPECT_EQ(Post(1, 0, advert).code, wire::kCoapChanged);
  EXPECT_EQ(Post(1, 0, poll(1)).code, wire::kCoapChanged);
  EXPECT_EQ(Post(1, 1, poll(1)).code, wire::kCoapPreconditionFailed);
  Phase(1, {1, 2, 3, 4, 5});
  const Response resent = Post(1, 0, advert);
  const Response polled = Post(1, 0, poll(1));
  ASSERT_EQ(resent.code, wire::kCoapContent);
  EXPECT_EQ(polled.code, wire::kCoapContent);
  EXPECT_EQ(polled.body, resent.body);
  EXPECT_EQ(Post(2, 0, poll(2)).code, wire::kCoapPreconditionFailed);
  Take(0, polled);
  for (int phase = 2; phase <= 4; ++phase) Phase(phase, All());
  ASSERT_TRUE(service_.sum().has_value());
  EXPECT_EQ(*service_.sum(), PlainSum(All()));
}

// The gateway's state at its fullest (phase 4 open: every y_i, sealed
// message and key stored) holds no device's x_i; the end wipes it.
TEST_F(SecAggServiceTest, GatewayNeverHoldsAnUnmaskedInput) {
  for (int phase = 1; phase <= 3; ++phase) Phase(phase, All());
  const auto& stored = service_.round()->stored();
  ASSERT_EQ(stored.size(), kN);
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(stored[i].masked);
    EXPECT_NE(stored[i].masked_input, devices_.dev(i).x) << i;
  }
  Phase(4, All());
  EXPECT_TRUE(service_.round()->stored().empty());
}

// The before-unmask hook runs once, as the masked inputs' phase closes,
// with the survivors, before any device learns which of its neighbours
// survived, what it needs to reveal shares (and so before any sum can
// exist).
TEST_F(SecAggServiceTest, BeforeUnmaskHookGetsTheSurvivorsFirst) {
  std::vector<std::vector<uint32_t>> calls;
  bool sum_at_call = true;
  service_.set_before_unmask([&](const std::vector<uint32_t>& survivors) {
    calls.push_back(survivors);
    sum_at_call = service_.sum().has_value();
    return host::Error::Ok();
  });
  Phase(1, All());
  Phase(2, All());
  const std::vector<uint32_t> five = {0, 1, 2, 3, 4};
  for (uint32_t i : {0u, 1u, 2u, 3u}) {
    EXPECT_EQ(Post(3, i, Message(i)).code, wire::kCoapChanged);
  }
  EXPECT_TRUE(calls.empty());
  now_ += kPhaseMs;  // device 5 misses phase 3
  EXPECT_EQ(Post(3, 4, Message(4)).code, wire::kCoapChanged);
  service_.Tick(now_);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], five);
  EXPECT_FALSE(sum_at_call);
  for (uint32_t i : five) Take(i, Post(3, i, Message(i)));
  Phase(4, five);
  ASSERT_TRUE(service_.sum().has_value());
  EXPECT_EQ(*service_.sum(), PlainSum(five));
  EXPECT_EQ(calls.size(), 1u);
}

// A hook that fails (the charges could not be stored) aborts the round as
// the masked inputs' phase closes: no device gets phase 3's answer,
// nothing is unmasked, and the round's state is wiped.
TEST_F(SecAggServiceTest, FailedBeforeUnmaskHookAbortsUnmasked) {
  service_.set_before_unmask([](const std::vector<uint32_t>&) {
    return host::Error::Unavailable("store down");
  });
  Phase(1, All());
  Phase(2, All());
  for (uint32_t i = 0; i + 1 < kN; ++i) {
    EXPECT_EQ(Post(3, i, Message(i)).code, wire::kCoapChanged);
  }
  const Response last = Post(3, kN - 1, Message(kN - 1));
  EXPECT_EQ(last.code, wire::kCoapInternalServerError);
  EXPECT_EQ(service_.phase(), SecAggPhase::kAborted);
  EXPECT_EQ(service_.abort_reason().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(service_.sum().has_value());
  EXPECT_TRUE(service_.round()->stored().empty());
  EXPECT_EQ(Post(3, 0, Message(0)).code, wire::kCoapInternalServerError);
}

// A restart mid-phase 3 with the round log: a new service recovers the
// round from the file, the devices resend, the sum is the plain sum; the
// log never holds an x_i and is deleted at the end.
TEST_F(SecAggServiceTest, RoundLogSurvivesARestart) {
  const std::string path = StartLoggedRound("secagg_round_log_");
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Post(3, i, Message(i)).code, wire::kCoapChanged);
  }
  {  // the log holds no device's x as sent
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::vector<uint8_t> all(1 << 16);
    all.resize(std::fread(all.data(), 1, all.size(), f));
    std::fclose(f);
    for (uint32_t i = 0; i < kN; ++i) {
      const auto* x =
          reinterpret_cast<const uint8_t*>(devices_.dev(i).x.data());
      EXPECT_EQ(std::search(all.begin(), all.end(), x, x + 4 * kM), all.end());
    }
  }
  // The daemon restarts: the old service is gone, a new one reads the log.
  SecAggService restarted;
  restarted.set_log_path(path);
  now_ += 5;
  ASSERT_TRUE(restarted.Recover(now_, drbg_).ok());
  svc_ = &restarted;
  EXPECT_EQ(restarted.phase(), SecAggPhase::kMaskedInput);
  Phase(3, All());  // 0..2 resend (accepted as resends), 3..5 are new
  Phase(4, All());
  ASSERT_TRUE(restarted.sum().has_value())
      << static_cast<int>(restarted.phase()) << " "
      << restarted.abort_reason().message();
  EXPECT_EQ(*restarted.sum(), PlainSum(All()));
  EXPECT_EQ(std::fopen(path.c_str(), "rb"), nullptr);  // deleted
}

// A restart whose log holds phase 3's close (survivors 0..4): the replay
// calls the before-unmask hook with the same survivors, since the store may
// have lost the charge the first call wrote; the phases go on.
TEST_F(SecAggServiceTest, ReplayedCloseCallsTheBeforeUnmaskHook) {
  const std::string path = LogPhaseThreeClose("secagg_replay_hook_");
  std::vector<std::vector<uint32_t>> calls;
  SecAggService restarted;
  restarted.set_log_path(path);
  restarted.set_before_unmask([&](const std::vector<uint32_t>& survivors) {
    calls.push_back(survivors);
    return host::Error::Ok();
  });
  ASSERT_TRUE(restarted.Recover(now_, drbg_).ok());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::vector<uint32_t>({0, 1, 2, 3, 4}));
  EXPECT_EQ(restarted.phase(), SecAggPhase::kUnmasking);
  std::remove(path.c_str());
}

// The replayed close's hook refuses (the charge cannot be stored): the
// round ends unmasked and its log is deleted.
TEST_F(SecAggServiceTest, ReplayedCloseWhoseHookRefusesEndsTheRound) {
  const std::string path = LogPhaseThreeClose("secagg_replay_refused_");
  SecAggService restarted;
  restarted.set_log_path(path);
  restarted.set_before_unmask([](const std::vector<uint32_t>&) {
    return host::Error::Unavailable("store down");
  });
  ASSERT_TRUE(restarted.Recover(now_, drbg_).ok());
  EXPECT_EQ(restarted.phase(), SecAggPhase::kAborted);
  EXPECT_FALSE(restarted.sum().has_value());
  std::FILE* log = std::fopen(path.c_str(), "rb");
  EXPECT_EQ(log, nullptr);  // deleted
  if (log != nullptr) std::fclose(log);
}

// The close of phase 3 cannot be logged (the file may not grow): the
// round aborts before any device is told the survivors, since a restart
// would reopen the phase and could close it on another set.
TEST_F(SecAggServiceTest, UnloggedCloseAbortsTheRound) {
  const std::string path = StartLoggedRound("secagg_round_log_full_");
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(Post(3, i, Message(i)).code, wire::kCoapChanged);
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fclose(f);
  // Writes past the current size fail (EFBIG) from here on.
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit full = saved;
  full.rlim_cur = static_cast<rlim_t>(size);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &full), 0);
  now_ += kPhaseMs;
  service_.Tick(now_);  // device 5 missed the deadline: phase 3 closes
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(service_.abort_reason().ok());
  // A survivor asking again for the phase's answer is refused.
  EXPECT_EQ(Post(3, 0, Message(0)).code, wire::kCoapInternalServerError);
  EXPECT_FALSE(service_.sum().has_value());
  std::remove(path.c_str());
}

TEST_F(SecAggServiceTest, MissingTheDeadlineIsADropout) {
  EXPECT_EQ(service_.Awaited(), All());
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(Post(1, i, Message(i)).code, wire::kCoapChanged);
  }
  EXPECT_EQ(service_.Awaited(), std::vector<uint32_t>{5});
  service_.Tick(now_ + kPhaseMs - 1);
  EXPECT_EQ(service_.phase(), SecAggPhase::kAdvertise);
  now_ += kPhaseMs;
  service_.Tick(now_);
  EXPECT_EQ(service_.phase(), SecAggPhase::kShareKeys);
  EXPECT_EQ(Post(1, 5, Message(5)).code, wire::kCoapPreconditionFailed);
  const std::vector<uint32_t> five = {0, 1, 2, 3, 4};
  // Phase 2 awaits only the devices that advertised.
  EXPECT_EQ(service_.Awaited(), five);
  for (uint32_t i : five) Take(i, Post(1, i, Message(i)));
  for (int phase = 2; phase <= 4; ++phase) Phase(phase, five);
  ASSERT_TRUE(service_.sum().has_value()) << service_.abort_reason().message();
  EXPECT_EQ(*service_.sum(), PlainSum(five));
  EXPECT_TRUE(service_.Awaited().empty());  // no phase open
}

}  // namespace
}  // namespace edgeadmm::server
