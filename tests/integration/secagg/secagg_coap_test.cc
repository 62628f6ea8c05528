// SecAgg+ rounds over the network: the gateway's CoapServer (in process,
// real DTLS-PSK on loopback) serving v1/secagg/* through SecAggService,
// and 10 devices each driving a SecAggDeviceSession with SecAggPhaseClient
// over its own CoapDtlsTransport, all on one thread (server and clients
// take turns). Each device learns the round from the gateway (phase 0,
// Join). The unmasked sum equals the plain sum mod 2^b; a device that
// vanishes after its masked input and devices restarted mid-round (after
// phase 0 and after phase 2; session restored from its stored blob, the
// round not asked again) still give the right sum; a device whose buffers
// cannot hold the round refuses it before sending anything; with
// fewer devices than the floor the round aborts and the gateway keeps
// nothing; a device outside the cohort, another Content-Format, a
// malformed body, a frame of another phase, a body on phase 0's GET, no
// round and a round past phase 1 are refused; so is, by the device, an
// input that does not fit the round. A round of 34 devices, 32 neighbours
// and 1,000 words moves its frames in several blocks (Block1 up, Block2
// down), half of its devices on the SDK's CoapClient; a phase body above
// its bound is refused at the first block that shows it (4.13), blocks out
// of sequence with 4.08 (raw requests, the gateway on its own thread).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/secagg/phase_client.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "raw_coap_session.h"
#include "secagg_test_device.h"
#include "secure_job_fixture.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

using secure_aggregation::SecAggPhase;

// The small round of most tests; LargeRoundOverBlockwiseTransfers runs one
// of kLargeN devices, kLargeK neighbours and kLargeM words, whose frames
// and answers take several 1024-byte blocks (Block1 up, Block2 down).
constexpr uint32_t kN = 10;
constexpr size_t kK = 6;
constexpr size_t kM = 16;
constexpr uint32_t kLargeN = 34;
constexpr size_t kLargeK = 32;
constexpr size_t kLargeM = 1000;
constexpr uint32_t kBits = 20;
constexpr size_t kBlock = 1024;  // the transports' block (SZX 6)

struct Shape {
  uint32_t n = kN;
  size_t k = kK;
  size_t m = kM;
  uint32_t threshold = 4;
  uint32_t min_survivors = 7;
  // A phase's deadline on the test's clock (HeldServerClock), which passes
  // it only when the phase waits for devices that are gone; it closes
  // earlier once every device answered.
  int64_t phase_ms = 3000;
};

secure_aggregation::SecAggRoundParams RoundParams(uint64_t round_id,
                                                  const Shape& shape) {
  secure_aggregation::SecAggRoundParams p;
  p.round_id = round_id;
  p.devices = shape.n;
  p.degree = static_cast<uint32_t>(shape.k);
  p.threshold = shape.threshold;
  p.bits = kBits;
  p.mask_length = static_cast<uint32_t>(shape.m);
  p.min_survivors = shape.min_survivors;
  for (size_t b = 0; b < p.graph_seed.size(); ++b) {
    p.graph_seed[b] = static_cast<std::byte>(round_id * 13 + b);
  }
  return p;
}

using Device = testing::SecAggTestDevice<kLargeK, kLargeM>;

class SecAggCoapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ctx_.status().ok());
    // dev-010 is outside the small round's cohort.
    ASSERT_NO_FATAL_FAILURE(
        testing::EnrollWithPsks(db_.db(), kLargeN + 1, names_, psks_));
    ASSERT_NO_FATAL_FAILURE(testing::StartLoopbackServer(db_.db(), server_));
    clock_.Attach(*server_);
    ASSERT_TRUE(entropy_drbg_.Init(gateway_entropy_, ConstByteSpan()).ok());
    // Outside the small round, every other device runs the SDK's stack.
    for (uint32_t i = 0; i <= kLargeN; ++i) {
      devices_.push_back(std::make_unique<Device>(ctx_, server_->port(),
                                                  names_[i], psks_[i], 100 + i,
                                                  i > kN && i % 2 == 1));
    }
  }

  // Starts round `round_id` on the gateway; the first shape_.n devices Join
  // it (phase 0: each asks v1/secagg/round?round=<round_id> for the
  // parameters and its index).
  void Start(uint64_t round_id) {
    StartGateway(round_id);
    for (uint32_t i = 0; i < shape_.n; ++i) {
      Device& d = *devices_[i];
      ASSERT_TRUE(
          d.client->Join(Span<const uint32_t>(d.x.data(), d.x.size()), round_id)
              .ok());
    }
  }
  void StartGateway(uint64_t round_id) {
    const auto params = RoundParams(round_id, shape_);
    std::vector<std::string> cohort(names_.begin(), names_.begin() + shape_.n);
    // No job drives this round, so no charge is stored at phase 3's close:
    // without this the server's driver would abort it there, unmasked.
    server_->secagg().set_before_unmask(nullptr);
    ASSERT_TRUE(server_->secagg()
                    .Start(params, cohort, shape_.phase_ms, clock_.now_ms(),
                           entropy_drbg_)
                    .ok());
    for (uint32_t i = 0; i < shape_.n; ++i) {
      Device& d = *devices_[i];
      d.x.clear();
      for (uint32_t w = 0; w < shape_.m; ++w) {
        d.x.push_back((i * 7919u + w * 104729u + uint32_t(round_id)) &
                      ((1u << kBits) - 1));
      }
    }
  }

  bool RoundOver() const {
    const SecAggPhase p = server_->secagg().phase();
    return p == SecAggPhase::kDone || p == SecAggPhase::kAborted;
  }

  // Server and devices take turns until the gateway's round ended and
  // every device still on finished; `each` runs every turn. The open
  // phase's deadline passes only when every device it awaits is gone.
  template <typename Each>
  void Run(Each each) {
    for (;;) {
      ASSERT_TRUE(server_->RunOnce(1).ok());
      (void)ctx_.Poll(0);
      bool all = true;
      for (uint32_t i = 0; i < shape_.n; ++i) {
        Device& d = *devices_[i];
        if (d.gone) continue;
        if (d.sdk_stack) (void)d.link->Poll(0);
        d.client->Step(posix::MonotonicMs());
        all = all && d.client->finished();
      }
      each();
      if (all && RoundOver()) return;
      clock_.AfterTurn(
          *server_, shape_.phase_ms,
          [this](const std::string& id) { return devices_[Index(id)]->gone; });
    }
  }
  size_t Index(const std::string& name) const {
    return size_t(std::find(names_.begin(), names_.end(), name) -
                  names_.begin());
  }

  // Server and one device take turns until that device's client finished.
  void RunAlone(Device& d) {
    while (!d.client->finished()) {
      ASSERT_TRUE(server_->RunOnce(1).ok());
      (void)ctx_.Poll(0);
      d.client->Step(posix::MonotonicMs());
    }
  }

  std::vector<uint32_t> PlainSum() const {
    std::vector<uint32_t> sum(shape_.m, 0);
    for (uint32_t i = 0; i < shape_.n; ++i) {
      for (size_t w = 0; w < shape_.m; ++w) {
        sum[w] = (sum[w] + devices_[i]->x[w]) & ((1u << kBits) - 1);
      }
    }
    return sum;
  }

  Shape shape_;
  testing::TempDatabase db_;
  posix::CoapClientContext ctx_;
  std::unique_ptr<server::CoapServer> server_;
  TestEntropy gateway_entropy_{7};
  Drbg entropy_drbg_;
  std::vector<std::vector<uint8_t>> psks_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<Device>> devices_;
  testing::HeldServerClock clock_;
};

TEST_F(SecAggCoapTest, SumOverTheNetworkEqualsPlainSum) {
  Start(41);
  Run([] {});
  ASSERT_TRUE(server_->secagg().sum().has_value())
      << server_->secagg().abort_reason().message();
  EXPECT_EQ(*server_->secagg().sum(), PlainSum());
  for (uint32_t i = 0; i < kN; ++i) {
    EXPECT_TRUE(devices_[i]->client->outcome().ok()) << i;
  }
  EXPECT_TRUE(server_->secagg().round()->stored().empty());
}

TEST_F(SecAggCoapTest, LargeRoundOverBlockwiseTransfers) {
  // n = 34, k = 32, m = 1,000: the share-keys frame (2,764 B), the masked
  // input (4,014 B) and the unmasking frame (1,228 B) go up in 3, 4 and 2
  // Block1 blocks, the neighbours' keys (2,188 B) and the sealed messages
  // (up to 2,764 B) come down in 3 Block2 blocks each; devices 11, 13, ...,
  // 33 on the SDK's CoapClient, the others on libcoap. No device drops, so
  // every phase closes when all answered (the test's clock never reaches a
  // deadline, however slow the build).
  shape_ = Shape{kLargeN, kLargeK, kLargeM, 17, 30};
  ASSERT_GT(SecAggSealedBytes(kLargeK), 2 * kBlock);
  ASSERT_GT(SecAggWordsBytes(kLargeM), 3 * kBlock);
  ASSERT_GT(SecAggKeysAnswerBytes(kLargeK), 2 * kBlock);
  Start(48);
  Run([] {});
  ASSERT_TRUE(server_->secagg().sum().has_value())
      << server_->secagg().abort_reason().message();
  EXPECT_EQ(server_->secagg().sum()->size(), kLargeM);
  EXPECT_EQ(*server_->secagg().sum(), PlainSum());
  for (uint32_t i = 0; i < kLargeN; ++i) {
    EXPECT_TRUE(devices_[i]->client->outcome().ok()) << i;
  }
}

TEST_F(SecAggCoapTest, DropoutAfterMaskedInputAndRebootStillSum) {
  Start(42);
  bool rebooted = false;
  bool rejoined = false;
  Run([&] {
    // Device 5 reboots once phase 0 is done: the round comes from its blob.
    Device& j = *devices_[5];
    if (!rejoined && j.session->phase() == SecAggDevicePhase::kAdvertised) {
      rejoined = true;
      ASSERT_TRUE(j.Reboot().ok());
      ASSERT_EQ(j.session->phase(), SecAggDevicePhase::kAdvertised);
      EXPECT_EQ(j.session->params().own_index, 5u);
      EXPECT_EQ(j.session->params().round_id, 42u);
    }
    // Device 3 reboots once its shares are out: RAM lost, blob resumed.
    Device& r = *devices_[3];
    if (!rebooted && r.session->phase() == SecAggDevicePhase::kMaskedSent) {
      rebooted = true;
      ASSERT_TRUE(r.Reboot().ok());
      ASSERT_EQ(r.session->phase(), SecAggDevicePhase::kMaskedSent);
    }
    // Device 0 vanishes once the masked-input phase closed.
    if (server_->secagg().phase() >= SecAggPhase::kUnmasking) {
      devices_[0]->gone = true;
    }
  });
  EXPECT_TRUE(rebooted);
  EXPECT_TRUE(rejoined);
  ASSERT_TRUE(server_->secagg().sum().has_value())
      << server_->secagg().abort_reason().message();
  EXPECT_EQ(*server_->secagg().sum(), PlainSum());  // 0's y was in
  EXPECT_FALSE(devices_[0]->client->finished());
}

TEST_F(SecAggCoapTest, BelowTheFloorAbortsAndKeepsNothing) {
  Start(43);
  Run([&] {
    // Four devices vanish once their advertisement is in: 6 < the floor
    // of 7 share their keys. (The round's store is empty once it aborted.)
    const auto& stored = server_->secagg().round()->stored();
    for (uint32_t i = 0; i < 4 && i < stored.size(); ++i) {
      if (stored[i].advertised) devices_[i]->gone = true;
    }
  });
  EXPECT_EQ(server_->secagg().phase(), SecAggPhase::kAborted);
  EXPECT_FALSE(server_->secagg().sum().has_value());
  EXPECT_FALSE(server_->secagg().abort_reason().ok());
  EXPECT_TRUE(server_->secagg().round()->stored().empty());
  for (uint32_t i = 4; i < kN; ++i) {
    EXPECT_TRUE(devices_[i]->client->finished());
    EXPECT_FALSE(devices_[i]->client->outcome().ok()) << i;
    EXPECT_EQ(devices_[i]->session->phase(), SecAggDevicePhase::kAborted);
  }
}

// Raw requests over DTLS: one exchange, its CoAP code.
uint8_t Send(posix::CoapClientContext& ctx, server::CoapServer& server,
             Device& d, CoapMethod method, const char* path,
             const std::vector<std::byte>& body,
             uint16_t format = kSecAggFrameFormat) {
  TransportRequest request;
  request.method = method;
  request.path = path;
  request.content_format = format;
  request.payload = ConstByteSpan(body.data(), body.size());
  std::byte answer[1024];
  EXPECT_TRUE(d.transport->StartRequest(request, answer).ok());
  TransportResult result;
  while (!d.transport->TakeResult(result)) {
    EXPECT_TRUE(server.RunOnce(1).ok());
    (void)ctx.Poll(0);
  }
  EXPECT_TRUE(result.status.ok());
  return result.code;
}
uint8_t Post(posix::CoapClientContext& ctx, server::CoapServer& server,
             Device& d, const char* path, const std::vector<std::byte>& body,
             uint16_t format = kSecAggFrameFormat) {
  return Send(ctx, server, d, CoapMethod::kPost, path, body, format);
}
uint8_t GetRound(posix::CoapClientContext& ctx, server::CoapServer& server,
                 Device& d, const std::vector<std::byte>& body = {}) {
  return Send(ctx, server, d, CoapMethod::kGet, kSecAggRoundPath, body);
}

TEST_F(SecAggCoapTest, RefusalsOverTheNetwork) {
  Start(44);
  std::vector<std::byte> advert(SecAggAdvertiseBytes());
  SecAggAdvertisement a;
  ASSERT_TRUE(
      EncodeSecAggAdvertise(44, a, ByteSpan(advert.data(), advert.size()))
          .ok());
  // dev-010 is enrolled but outside the round's cohort.
  EXPECT_EQ(Post(ctx_, *server_, *devices_[kN], kSecAggPaths[0], advert),
            wire::kCoapForbidden);
  std::vector<std::byte> truncated(advert.begin(), advert.end() - 1);
  EXPECT_EQ(Post(ctx_, *server_, *devices_[0], kSecAggPaths[0], truncated),
            wire::kCoapBadRequest);
  EXPECT_EQ(Post(ctx_, *server_, *devices_[0], kSecAggPaths[0], advert,
                 wire::kUpdateFormat),
            wire::kCoapUnsupportedContentFormat);
  // An advertisement posted to phase 2's resource.
  EXPECT_EQ(Post(ctx_, *server_, *devices_[0], kSecAggPaths[1], advert),
            wire::kCoapBadRequest);
  EXPECT_EQ(server_->secagg().round()->stored()[0].advertised, false);
}

TEST_F(SecAggCoapTest, PhaseZeroRefusalsOverTheNetwork) {
  EXPECT_EQ(GetRound(ctx_, *server_, *devices_[0]), wire::kCoapNotFound);
  StartGateway(45);
  EXPECT_EQ(GetRound(ctx_, *server_, *devices_[0]), wire::kCoapContent);
  EXPECT_EQ(GetRound(ctx_, *server_, *devices_[kN]), wire::kCoapForbidden);
  // Naming the round (decimal, no leading zero): the running one, or 4.04.
  const auto named = [&](const char* path) {
    return Send(ctx_, *server_, *devices_[0], CoapMethod::kGet, path, {});
  };
  EXPECT_EQ(named("v1/secagg/round?round=45"), wire::kCoapContent);
  EXPECT_EQ(named("v1/secagg/round?round=46"), wire::kCoapNotFound);
  EXPECT_EQ(named("v1/secagg/round?round=18446744073709551615"),
            wire::kCoapNotFound);
  for (const char* bad :
       {"v1/secagg/round?round=045", "v1/secagg/round?round=4x",
        "v1/secagg/round?round=-45", "v1/secagg/round?round=0",
        "v1/secagg/round?round=18446744073709551616"}) {
    EXPECT_EQ(named(bad), wire::kCoapBadRequest) << bad;
  }
  EXPECT_EQ(named("v1/secagg/round?job=a"), wire::kCoapBadOption);
  // A client naming another round ends with 4.04's status, nothing sent.
  ASSERT_TRUE(devices_[2]
                  ->client
                  ->Join(Span<const uint32_t>(devices_[2]->x.data(),
                                              devices_[2]->x.size()),
                         46)
                  .ok());
  ASSERT_NO_FATAL_FAILURE(RunAlone(*devices_[2]));
  EXPECT_EQ(devices_[2]->client->outcome(), Status::NotFound());
  EXPECT_FALSE(server_->secagg().round()->stored()[2].advertised);
  // A body (the transport adds its Content-Format): not phase 0's shape.
  EXPECT_EQ(GetRound(ctx_, *server_, *devices_[0], {std::byte{1}}),
            wire::kCoapBadOption);
  // Phase 1 closes at its deadline (no one advertised: the round aborts);
  // either way the round cannot be joined any more.
  clock_.Advance(shape_.phase_ms);
  server_->secagg().Tick(clock_.now_ms());
  ASSERT_NE(server_->secagg().phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(GetRound(ctx_, *server_, *devices_[0]),
            wire::kCoapPreconditionFailed);
  // A client that asks now ends with 4.12's status, its session idle.
  Device& d = *devices_[1];
  ASSERT_TRUE(
      d.client->Join(Span<const uint32_t>(d.x.data(), d.x.size())).ok());
  ASSERT_NO_FATAL_FAILURE(RunAlone(d));
  EXPECT_EQ(d.client->outcome(), Status::FailedPrecondition());
  EXPECT_EQ(d.session->phase(), SecAggDevicePhase::kIdle);
}

TEST_F(SecAggCoapTest, JoinRefusesARoundLargerThanTheBuffers) {
  StartGateway(46);
  Device& d = *devices_[2];
  d.Boot(kK - 1);  // room for one neighbour fewer than the round's k
  ASSERT_TRUE(
      d.client->Join(Span<const uint32_t>(d.x.data(), d.x.size())).ok());
  ASSERT_NO_FATAL_FAILURE(RunAlone(d));
  EXPECT_EQ(d.client->outcome(), Status::ResourceExhausted());
  EXPECT_EQ(d.session->phase(), SecAggDevicePhase::kIdle);
  EXPECT_FALSE(server_->secagg().round()->stored()[2].advertised);
  // An input of m - 1 words does not fit the round either.
  d.Boot();
  ASSERT_TRUE(
      d.client->Join(Span<const uint32_t>(d.x.data(), d.x.size() - 1)).ok());
  EXPECT_EQ(d.client->Join(Span<const uint32_t>(d.x.data(), d.x.size())),
            Status::FailedPrecondition());  // one Join at a time
  ASSERT_NO_FATAL_FAILURE(RunAlone(d));
  EXPECT_EQ(d.client->outcome(), Status::InvalidArgument());
  EXPECT_EQ(d.session->phase(), SecAggDevicePhase::kIdle);
  EXPECT_FALSE(server_->secagg().round()->stored()[2].advertised);
  // With buffers for the round, the same device joins and advertises.
  d.Boot();
  ASSERT_TRUE(
      d.client->Join(Span<const uint32_t>(d.x.data(), d.x.size())).ok());
  while (!server_->secagg().round()->stored()[2].advertised) {
    ASSERT_TRUE(server_->RunOnce(1).ok());
    (void)ctx_.Poll(0);
    d.client->Step(posix::MonotonicMs());
  }
  EXPECT_EQ(d.session->params().own_index, 2u);
}

// POST v1/secagg/masked-input blocks from a raw libcoap client (options of
// any value); the gateway runs on its own thread while the client waits.
testing::RawAnswer PostBlock(server::CoapServer& server,
                             testing::RawCoapSession& raw, uint32_t num,
                             bool more, uint32_t size1, size_t length,
                             uint32_t block2 = 0) {
  std::vector<testing::RawOption> options = {
      testing::UintOption(COAP_OPTION_CONTENT_FORMAT, kSecAggFrameFormat),
      testing::UintOption(COAP_OPTION_BLOCK1,
                          (num << 4) | (more ? 8u : 0u) | 6u)};  // SZX 6
  if (size1 != 0) {
    options.push_back(testing::UintOption(COAP_OPTION_SIZE1, size1));
  }
  if (block2 != 0) {
    options.push_back(testing::UintOption(COAP_OPTION_BLOCK2, block2 << 4 | 6));
  }
  std::atomic<bool> stop{false};
  std::thread gateway([&] {
    while (!stop.load()) EXPECT_TRUE(server.RunOnce(1).ok());
  });
  const testing::RawAnswer a =
      raw.Request(COAP_REQUEST_CODE_POST, kSecAggPaths[2], options,
                  std::vector<uint8_t>(length, 0x5a));
  stop.store(true);
  gateway.join();
  return a;
}

TEST_F(SecAggCoapTest, PhaseBodiesAreBoundedAndInSequence) {
  shape_ = Shape{kLargeN, kLargeK, kLargeM, 17, 30};
  StartGateway(49);
  const size_t limit = server_->secagg().MaxBody(3);
  ASSERT_EQ(limit, SecAggWordsBytes(kLargeM));  // 4,014 B: 4 blocks
  testing::RawCoapSession raw(server_->port(), names_[0], psks_[0]);
  ASSERT_TRUE(raw.ok());
  // Size1 one byte above the phase's largest frame: 4.13 at block 0, with
  // Size1 = the bound.
  testing::RawAnswer a =
      PostBlock(*server_, raw, 0, true, static_cast<uint32_t>(limit + 1), 1024);
  EXPECT_EQ(a.code, wire::kCoapRequestEntityTooLarge);
  EXPECT_EQ(a.size1, limit);
  // Without Size1: 2.31 while the body fits, 4.13 at the first block that
  // ends past the bound (block 3 ends at 4,096 B).
  for (uint32_t num = 0; num < 3; ++num) {
    EXPECT_EQ(PostBlock(*server_, raw, num, true, 0, 1024).code,
              wire::kCoapContinue)
        << num;
  }
  a = PostBlock(*server_, raw, 3, true, 0, 1024);
  EXPECT_EQ(a.code, wire::kCoapRequestEntityTooLarge);
  EXPECT_EQ(a.size1, limit);
  // A later block without its start, then a gap after block 0: 4.08.
  EXPECT_EQ(PostBlock(*server_, raw, 2, true, 0, 1024).code,
            wire::kCoapRequestEntityIncomplete);
  EXPECT_EQ(PostBlock(*server_, raw, 0, true, 0, 1024).code,
            wire::kCoapContinue);
  EXPECT_EQ(PostBlock(*server_, raw, 2, false, 0, 100).code,
            wire::kCoapRequestEntityIncomplete);
  // The request for an answer's block 1 that the gateway no longer holds
  // (the last Block1 block again, with Block2): 4.08, which a device
  // answers by sending its message again (SecAggPhaseClient).
  EXPECT_EQ(PostBlock(*server_, raw, 3, false, 0, limit - 3 * kBlock, 1).code,
            wire::kCoapRequestEntityIncomplete);
  // A whole body of the bound's size reaches the service only at its last
  // block, which judges it (not a frame: 4.00).
  for (uint32_t num = 0; num < 3; ++num) {
    EXPECT_EQ(PostBlock(*server_, raw, num, true, 0, 1024).code,
              wire::kCoapContinue)
        << num;
  }
  EXPECT_EQ(PostBlock(*server_, raw, 3, false, 0, limit - 3 * kBlock).code,
            wire::kCoapBadRequest);
}

}  // namespace
}  // namespace edgeadmm
