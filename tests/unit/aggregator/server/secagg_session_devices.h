// Devices running SecAggDeviceSession against a SecAggService without
// sockets (the unit tests of the service and of SecureRoundDriver), with
// capacities of K neighbours, M words and N devices: each device's message
// of its current phase, its taking of the phase's answer, and a phase run
// by a set of devices.
#ifndef EDGEADMM_TESTS_UNIT_AGGREGATOR_SERVER_SECAGG_SESSION_DEVICES_H_
#define EDGEADMM_TESTS_UNIT_AGGREGATOR_SERVER_SECAGG_SESSION_DEVICES_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/server/secagg_service.h"
#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm::testing {

template <size_t K, size_t M, uint32_t N>
class SecAggSessionDevices {
 public:
  using Bytes = std::vector<std::byte>;
  struct Dev {
    explicit Dev(uint64_t seed) : entropy(seed), session(arrays.buffers()) {
      EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    }
    SecAggSessionArrays<K, M> arrays;
    TestEntropy entropy;
    Drbg drbg;
    SecAggDeviceSession session;
    std::string id;
    std::vector<uint32_t> x;  // the input words
  };

  // Device `id` joins with the round's parameters `s` (its own index in
  // s.own_index); x: its input.
  void Join(std::string id, const SecAggSessionParams& s,
            std::vector<uint32_t> x, uint64_t seed) {
    devs_.push_back(std::make_unique<Dev>(seed));
    Dev& d = *devs_.back();
    d.id = std::move(id);
    d.x = std::move(x);
    ASSERT_TRUE(d.session.Advertise(s, d.drbg).ok());
  }
  // The same from phase 0's answer of `service` for `id`.
  void JoinFromService(const server::SecAggService& service,
                       const std::string& id, std::vector<uint32_t> x,
                       uint64_t seed) {
    JoinFrom(service.Round(id), id, std::move(x), seed);
  }
  // The same from phase 0's answer `r`.
  void JoinFrom(const server::Response& r, const std::string& id,
                std::vector<uint32_t> x, uint64_t seed) {
    ASSERT_EQ(r.code, wire::kCoapContent);
    SecAggSessionParams s;
    ASSERT_TRUE(
        DecodeSecAggRound(
            ConstByteSpan(reinterpret_cast<const std::byte*>(r.body.data()),
                          r.body.size()),
            s)
            .ok());
    Join(id, s, std::move(x), seed);
  }

  Dev& dev(uint32_t i) { return *devs_[i]; }
  const Dev& dev(uint32_t i) const { return *devs_[i]; }
  size_t size() const { return devs_.size(); }

  // Device i's message of its current phase.
  Bytes Message(uint32_t i) {
    SecAggDeviceSession& s = devs_[i]->session;
    const uint64_t round = s.params().round_id;
    switch (s.phase()) {
      case SecAggDevicePhase::kAdvertised:
        return Frame(SecAggAdvertiseBytes(), [&](ByteSpan o) {
          return EncodeSecAggAdvertise(round, s.advertisement(), o);
        });
      case SecAggDevicePhase::kSharesSent:
        return Frame(SecAggSealedBytes(K), [&](ByteSpan o) {
          return EncodeSecAggSealed(round, s.sealed_messages(), o);
        });
      case SecAggDevicePhase::kMaskedSent:
        return Frame(SecAggWordsBytes(M), [&](ByteSpan o) {
          return EncodeSecAggWords(round, s.masked_input(), o);
        });
      default:
        return Frame(SecAggRevealBytes(K), [&](ByteSpan o) {
          return EncodeSecAggReveal(round, s.revealed_shares(), o);
        });
    }
  }

  // Device i takes the phase's answer.
  void Take(uint32_t i, const server::Response& r) {
    ASSERT_EQ(r.code, wire::kCoapContent);
    const ConstByteSpan f(reinterpret_cast<const std::byte*>(r.body.data()),
                          r.body.size());
    Dev& d = *devs_[i];
    SecAggFrameHeader h;
    switch (d.session.phase()) {
      case SecAggDevicePhase::kAdvertised: {
        SecAggPeerKeys keys[K];
        const StatusWithSize n = DecodeSecAggKeys(f, h, keys);
        ASSERT_TRUE(n.ok());
        ASSERT_TRUE(
            d.session
                .ShareKeys(Span<const SecAggPeerKeys>(keys, n.size()), d.drbg)
                .ok());
        break;
      }
      case SecAggDevicePhase::kSharesSent: {
        SecAggSealed sealed[K];
        const StatusWithSize n = DecodeSecAggSealed(f, h, sealed);
        ASSERT_TRUE(n.ok());
        ASSERT_TRUE(d.session
                        .MaskInput(Span<const SecAggSealed>(sealed, n.size()),
                                   Span<const uint32_t>(d.x.data(), d.x.size()),
                                   d.drbg)
                        .ok());
        break;
      }
      default: {
        uint32_t listed[K + 1];
        SurvivorAnswer answer;
        const StatusWithSize n =
            DecodeSecAggSurvivors(f, h, answer.survivors, listed);
        ASSERT_TRUE(n.ok());
        answer.listed = Span<const uint32_t>(listed, n.size());
        ASSERT_TRUE(d.session.Reveal(answer).ok());
      }
    }
  }

  // `Service`: a SecAggService, or SecAggRounds (routed by round id).
  template <typename Service>
  server::Response Post(Service& service, int phase, uint32_t i, const Bytes& b,
                        int64_t now_ms) {
    return service.Handle(phase, devs_[i]->id,
                          reinterpret_cast<const uint8_t*>(b.data()), b.size(),
                          now_ms);
  }

  // Every device in `who` posts phase `phase`; the last closes it; then
  // every one resends and takes the answer (phase 4: 2.04).
  template <typename Service>
  void Phase(Service& service, int phase, const std::vector<uint32_t>& who,
             int64_t now_ms) {
    for (size_t j = 0; j < who.size(); ++j) {
      const server::Response r =
          Post(service, phase, who[j], Message(who[j]), now_ms);
      const bool last = j + 1 == who.size();
      ASSERT_EQ(r.code,
                last && phase < 4 ? wire::kCoapContent : wire::kCoapChanged)
          << phase << " " << who[j];
    }
    if (phase == 4) return;
    for (uint32_t i : who) {
      Take(i, Post(service, phase, i, Message(i), now_ms));
    }
  }

  // A frame of at most `size` bytes that `encode` writes.
  template <typename Encode>
  static Bytes Frame(size_t size, Encode encode) {
    Bytes b(size);
    const StatusWithSize n = encode(ByteSpan(b.data(), b.size()));
    EXPECT_TRUE(n.ok());
    b.resize(n.size());
    return b;
  }

 private:
  std::vector<std::unique_ptr<Dev>> devs_;
};

}  // namespace edgeadmm::testing

#endif  // EDGEADMM_TESTS_UNIT_AGGREGATOR_SERVER_SECAGG_SESSION_DEVICES_H_
