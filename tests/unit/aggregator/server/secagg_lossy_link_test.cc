// SecAggPhaseClient against SecAggService over a lossy link
// (LoopbackTransport, 15% of datagrams lost, simulated clock): lost
// requests and lost answers (the gateway acted, the device did not hear)
// are resent byte-identical and answered from the accepted state, so ten
// devices still end with the plain sum and every device's outcome OK. The
// same when the gateway answers 4.08 (a Block1 body whose partial was lost:
// dropped after 30 s, or replaced by the session's other request): the
// device sends its message again. And phase 0's answer for another round
// than the one the device names is refused.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/loopback_transport.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/phase_client.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/secure_aggregation/secagg_round.h"
#include "edgeadmm/server/secagg_service.h"
#include "gtest/gtest.h"

namespace edgeadmm::server {
namespace {

constexpr uint32_t kN = 10;
constexpr size_t kK = 6;
constexpr size_t kM = 8;
using Arrays = SecAggSessionArrays<kK, kM>;

// The service as the loopback link's server side.
class ServiceEndpoint final : public CoapEndpoint {
 public:
  ServiceEndpoint(SecAggService& service, const int64_t& now)
      : service_(service), now_(now) {}
  CoapResponse Handle(const char* identity, const TransportRequest& request,
                      ByteSpan out) override {
    CoapResponse c;
    if (incomplete_every != 0 && ++requests % incomplete_every == 0) {
      c.code = 4 * 32 + 8;  // 4.08 Request Entity Incomplete
      ++incompletes;
      return c;
    }
    int phase = 0;
    for (int p = 0; p < 4; ++p) {
      if (std::strcmp(request.path, kSecAggPaths[p]) == 0) phase = p + 1;
    }
    // Phase 0, whatever its query names: a gateway that ignores the name.
    const bool round = std::strncmp(request.path, kSecAggRoundPath,
                                    std::strlen(kSecAggRoundPath)) == 0;
    if (round) last_round_path = request.path;
    if (request.payload.size() == kSecAggFrameHeaderBytes) ++polls;
    const Response r =
        round ? service_.Round(identity)
              : service_.Handle(
                    phase, identity,
                    reinterpret_cast<const uint8_t*>(request.payload.data()),
                    request.payload.size(), now_);
    c.code = r.code;
    if (r.body.size() > out.size()) {
      c.status = Status::ResourceExhausted();
      return c;
    }
    if (!r.body.empty()) std::memcpy(out.data(), r.body.data(), r.body.size());
    c.size = r.body.size();
    c.content_format = r.content_format;
    ++handled;
    return c;
  }
  uint64_t ResourceVersion(const char*, const char*) override { return 0; }
  int handled = 0;
  int incomplete_every = 0;  // every n-th request answered 4.08 (0: none)
  int requests = 0;
  int incompletes = 0;          // 4.08 answered
  std::string last_round_path;  // of the last phase 0 request
  int polls = 0;                // header-only requests (EncodeSecAggPoll)

 private:
  SecAggService& service_;
  const int64_t& now_;
};

struct Device {
  Device(ServiceEndpoint& endpoint, uint32_t i, uint32_t loss)
      : id("dev-" + std::to_string(i)),
        flash(4 * SecAggSessionBlobBytes(kK, kM)),
        storage(ByteSpan(flash.data(), flash.size())),
        entropy(900 + i),
        session(arrays.buffers()) {
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    LinkConfig link;
    link.loss_per_million = loss;
    link.seed = 31 + i;
    transport = std::make_unique<LoopbackTransport>(endpoint, id.c_str(), link);
    SecAggClientBuffers b;
    b.request = ByteSpan(request, sizeof(request));
    b.response = ByteSpan(response, sizeof(response));
    b.blob = ByteSpan(blob, sizeof(blob));
    b.keys = Span<SecAggPeerKeys>(keys, kK);
    b.sealed = Span<SecAggSealed>(sealed, kK);
    b.survivors = Span<uint32_t>(survivors, kK + 1);
    client = std::make_unique<SecAggPhaseClient>(*transport, storage, "sa",
                                                 session, drbg, b);
    for (uint32_t w = 0; w < kM; ++w)
      x.push_back((i * 5003 + w * 17) & 0xffffff);
  }
  std::string id;
  std::vector<std::byte> flash;
  MemoryStorage storage;
  TestEntropy entropy;
  Drbg drbg;
  Arrays arrays;
  SecAggDeviceSession session;
  std::unique_ptr<LoopbackTransport> transport;
  std::unique_ptr<SecAggPhaseClient> client;
  std::byte request[1024] = {};
  std::byte response[2048] = {};
  std::byte blob[4096] = {};
  SecAggPeerKeys keys[kK];
  SecAggSealed sealed[kK];
  uint32_t survivors[kK + 1] = {};
  std::vector<uint32_t> x;
};

secure_aggregation::SecAggRoundParams Params() {
  secure_aggregation::SecAggRoundParams params;
  params.round_id = 12;
  params.devices = kN;
  params.degree = kK;
  params.threshold = 4;
  params.bits = 24;
  params.mask_length = kM;
  params.min_survivors = 8;
  params.graph_seed[1] = std::byte{3};
  return params;
}

// A round of kN devices over links losing `loss` per million datagrams,
// the gateway answering every `incomplete_every`-th request 4.08.
void RunRound(uint32_t loss, int incomplete_every) {
  int64_t now = 0;
  SecAggService service;
  ServiceEndpoint endpoint(service, now);
  endpoint.incomplete_every = incomplete_every;
  TestEntropy gateway_entropy(5);
  Drbg gateway_drbg;
  ASSERT_TRUE(gateway_drbg.Init(gateway_entropy, ConstByteSpan()).ok());
  const secure_aggregation::SecAggRoundParams params = Params();
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<std::string> ids;
  for (uint32_t i = 0; i < kN; ++i) {
    devices.push_back(std::make_unique<Device>(endpoint, i, loss));
    ids.push_back(devices.back()->id);
  }
  ASSERT_TRUE(service.Start(params, ids, 60000, now, gateway_drbg).ok());
  for (uint32_t i = 0; i < kN; ++i) {
    Device& d = *devices[i];
    const SecAggSessionParams s =
        secure_aggregation::SecAggSessionParamsFor(params, i);
    ASSERT_TRUE(
        d.client->Start(s, Span<const uint32_t>(d.x.data(), d.x.size())).ok());
  }
  bool all = false;
  while (!all) {
    now += 10;
    service.Tick(now);
    all = true;
    for (auto& d : devices) {
      (void)d->transport->Poll(0);
      d->client->Step(static_cast<uint64_t>(now));
      all = all && d->client->finished();
    }
  }
  ASSERT_TRUE(service.sum().has_value()) << service.abort_reason().message();
  std::vector<uint32_t> plain(kM, 0);
  uint64_t lost = 0;
  for (auto& d : devices) {
    EXPECT_TRUE(d->client->outcome().ok()) << d->id;
    for (size_t w = 0; w < kM; ++w) {
      plain[w] = (plain[w] + d->x[w]) & 0xffffff;
    }
    lost += d->transport->stats().datagrams_lost;
  }
  EXPECT_EQ(*service.sum(), plain);
  EXPECT_EQ(lost > 0, loss > 0);  // the loss was exercised
  EXPECT_EQ(endpoint.incompletes > 0, incomplete_every != 0);
  EXPECT_GT(endpoint.polls, 0);  // the early devices waited by polling
  EXPECT_LT(now, 60000);         // every phase closed early: nobody dropped
}

TEST(SecAggLossyLinkTest, LostRequestsAndAnswersStillGiveThePlainSum) {
  RunRound(150000, 0);
}

TEST(SecAggLossyLinkTest, IncompleteBodiesAreSentAgain) { RunRound(0, 3); }

// Phase 0 names the round the input is for; a gateway that answers with
// another round's parameters (round 12 to a device that asked for 13) is
// refused before the device advertises anything, so an input is never
// masked into another round's sum. Naming round 12 joins it.
TEST(SecAggLossyLinkTest, PhaseZeroAnswerForAnotherRoundIsRefused) {
  int64_t now = 0;
  SecAggService service;
  ServiceEndpoint endpoint(service, now);
  TestEntropy gateway_entropy(5);
  Drbg gateway_drbg;
  ASSERT_TRUE(gateway_drbg.Init(gateway_entropy, ConstByteSpan()).ok());
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<std::string> ids;
  for (uint32_t i = 0; i < kN; ++i) {
    devices.push_back(std::make_unique<Device>(endpoint, i, 0));
    ids.push_back(devices.back()->id);
  }
  ASSERT_TRUE(service.Start(Params(), ids, 60000, now, gateway_drbg).ok());
  Device& d = *devices[0];
  const Span<const uint32_t> x(d.x.data(), d.x.size());
  ASSERT_TRUE(d.client->Join(x, 13).ok());
  while (!d.client->finished()) {
    now += 10;
    ASSERT_LT(now, 60000) << "joined round 12";
    (void)d.transport->Poll(0);
    d.client->Step(static_cast<uint64_t>(now));
  }
  EXPECT_EQ(endpoint.last_round_path, "v1/secagg/round?round=13");
  EXPECT_EQ(d.client->outcome(), Status::InvalidArgument());
  EXPECT_EQ(d.session.phase(), SecAggDevicePhase::kIdle);
  EXPECT_FALSE(service.round()->stored()[0].advertised);
  ASSERT_TRUE(d.client->Join(x, 12).ok());
  while (!service.round()->stored()[0].advertised) {
    now += 10;
    ASSERT_LT(now, 60000);
    (void)d.transport->Poll(0);
    d.client->Step(static_cast<uint64_t>(now));
  }
  EXPECT_EQ(endpoint.last_round_path, "v1/secagg/round?round=12");
  EXPECT_EQ(d.session.params().own_index, 0u);
}

}  // namespace
}  // namespace edgeadmm::server
