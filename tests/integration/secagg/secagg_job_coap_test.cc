// A secure-aggregation job run by the daemon's CoapServer (in process, real
// DTLS-PSK on loopback): the job's engine opens a round, the server starts
// its SecAgg+ phases (SecureRoundDriver), each of 6 devices GETs v1/task
// (the round's DDG plan and rotation seed are in RoundTask field 20),
// encodes a fixed clipped vector with the SDK's pieces (rotate, scale,
// conditional rounding, wrap mod 2^b; no noise) and sends it through the
// phases (SecAggPhaseClient). The daemon decodes the unmasked sum and
// commits the round: its model is ApplySum of the known vectors' sum within
// the rounding error; with one device gone after phase 2 the round still
// commits over the 5 survivors (the floor); with two gone (4 < 5) the
// round is discarded, nothing released or charged, and the next opens.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/sampling_rng.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "edgeadmm/secagg/ddg_plan.h"
#include "edgeadmm/secagg/phase_client.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "secagg_test_device.h"
#include "secure_job_fixture.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

using secure_aggregation::SecAggPhase;

constexpr uint32_t kDevices = 6;
constexpr size_t kMaxK = 8;
constexpr size_t kMaxM = 16;
constexpr int64_t kPhaseMs = 1000;  // the job's phases (SetUp)

// Device i's update before encoding (norm below the clip of 1).
std::vector<double> Update(uint32_t i) {
  return {0.3 + 0.05 * i, -0.2 + 0.1 * (i % 3), 0.4 - 0.07 * i};
}

using Device = testing::SecAggTestDevice<kMaxK, kMaxM>;

class SecAggJobCoapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ctx_.status().ok());
    // m = 6, m_min = 5, deadline 10 s, dropouts 1, phases of 1 s.
    const std::string toml = testing::SecureProxAdmmJobToml(6, 5, 10, 1, 1);
    std::vector<std::vector<uint8_t>> psks;
    ASSERT_NO_FATAL_FAILURE(testing::StartSecureJobOnLoopback(
        db_.db(), kDevices, toml, names_, psks, server_));
    clock_.Attach(*server_);
    for (uint32_t i = 0; i < kDevices; ++i) {
      devices_.push_back(std::make_unique<Device>(ctx_, server_->port(),
                                                  names_[i], psks[i], 50 + i));
    }
    // The engine opens a round and the server starts its phases.
    ASSERT_NO_FATAL_FAILURE(testing::TurnUntilPhasesStart(*server_, clock_));
  }

  // One turn of the server, its clock stepped (a phase passes its
  // deadline only when every device it awaits is gone).
  void TurnServer() {
    ASSERT_TRUE(server_->RunOnce(1).ok());
    clock_.AfterTurn(*server_, kPhaseMs, [this](const std::string& id) {
      for (const auto& d : devices_) {
        if (d->id == id) return d->gone;
      }
      return false;
    });
  }

  // One exchange of `d`, the server turning meanwhile.
  TransportResult Exchange(Device& d, const TransportRequest& request,
                           ByteSpan buffer) {
    TransportResult result;
    EXPECT_TRUE(d.transport->StartRequest(request, buffer).ok());
    while (!d.transport->TakeResult(result)) {
      TurnServer();
      (void)ctx_.Poll(0);
    }
    return result;
  }

  // GET v1/task, then the encoding of Update(i) with the task's plan.
  void FetchTaskAndEncode(uint32_t i) {
    Device& d = *devices_[i];
    std::vector<std::byte> body(4096);
    TransportRequest get;
    get.path = wire::kTaskPath;
    const TransportResult r =
        Exchange(d, get, ByteSpan(body.data(), body.size()));
    ASSERT_TRUE(r.status.ok());
    ASSERT_EQ(r.code, wire::kCoapContent);
    std::vector<Real> model(16), aux(16);
    wire::DecodedRoundTask task;
    ASSERT_TRUE(
        wire::DecodeRoundTask(ConstByteSpan(body.data(), r.payload_size),
                              Span<Real>(model.data(), model.size()),
                              Span<Real>(aux.data(), aux.size()), task)
            .ok());
    ASSERT_TRUE(task.header.has_secure_aggregation);
    // The spread of each phase message: 500 us (the default) times m = 6,
    // below a quarter of the 1-s phase.
    EXPECT_EQ(task.header.upload_spread_ms, 3u);
    const edgeadmm_wire_SecureAggregationPlan& s =
        task.header.secure_aggregation;
    const rounds::SecureRound& open = *server_->engine()->open_secure_round();
    EXPECT_EQ(task.header.round_id, uint64_t(open.round_id));
    EXPECT_EQ(std::memcmp(s.rotation_seed, open.rotation_seed.data(), 32), 0);
    DdgRoundPlan plan;
    plan.bits = s.bits;
    plan.gamma = s.gamma;
    plan.sigma2_num = s.sigma2_num;
    plan.sigma2_den = s.sigma2_den;
    plan.beta = s.beta;
    plan.clip = s.clip;
    plan.dimension = task.header.dimension;
    ASSERT_TRUE(ValidateDdgRoundPlan(plan).ok());
    plan_ = plan;
    const size_t dp = DdgPaddedDimension(plan.dimension);
    std::vector<Real> v(dp, 0);
    const std::vector<double> u = Update(i);
    for (size_t j = 0; j < u.size(); ++j) v[j] = Real(u[j]);
    std::vector<uint32_t> signs(dp / 32 + 1);
    ASSERT_TRUE(
        DdgRotate(ConstByteSpan(
                      reinterpret_cast<const std::byte*>(s.rotation_seed), 32),
                  task.header.round_id, Span<Real>(v.data(), dp),
                  Span<uint32_t>(signs.data(), signs.size()))
            .ok());
    for (Real& value : v) value = Real(double(value) / plan.gamma);
    std::vector<int64_t> z(dp);
    ASSERT_TRUE(ConditionalRandomizedRound(Span<const Real>(v.data(), dp),
                                           DdgPlanNormBound(plan), d.drbg, 8,
                                           Span<int64_t>(z.data(), dp))
                    .ok());
    d.x.assign(dp, 0);
    ASSERT_TRUE(WrapToModulus(Span<const int64_t>(z.data(), dp), plan.bits,
                              Span<uint32_t>(d.x.data(), dp))
                    .ok());
  }

  // Every device fetches its task, encodes and joins; server and devices
  // take turns until the engine committed or discarded the round.
  // The last `drop` devices power off once their shares are out (phase 2).
  void RunRound(uint32_t drop) {
    rounds::RoundEngine& engine = *server_->engine();
    const int64_t round_id = engine.open_secure_round()->round_id;
    for (uint32_t i = 0; i < kDevices; ++i) {
      FetchTaskAndEncode(i);
      Device& d = *devices_[i];
      ASSERT_TRUE(
          d.client->Join(Span<const uint32_t>(d.x.data(), d.x.size())).ok());
    }
    while (engine.released_round_id() != round_id &&
           engine.open_secure_round() != nullptr &&
           engine.open_secure_round()->round_id == round_id) {
      ASSERT_NO_FATAL_FAILURE(TurnServer());
      (void)ctx_.Poll(0);
      for (auto& d : devices_) {
        if (d->gone) continue;
        d->client->Step(posix::MonotonicMs());
      }
      for (uint32_t i = kDevices - drop; i < kDevices; ++i) {
        Device& d = *devices_[i];
        if (d.session->phase() == SecAggDevicePhase::kSharesSent) {
          d.gone = true;
        }
      }
    }
  }

  // ApplySum of the first `count` devices' updates from `before`.
  algorithms::ServerModel Expected(const algorithms::ServerModel& before,
                                   uint32_t count) {
    std::vector<double> sum(3, 0.0);
    for (uint32_t i = 0; i < count; ++i) {
      for (size_t j = 0; j < 3; ++j) sum[j] += Update(i)[j];
    }
    algorithms::ServerModel model = before;
    auto noise = rounds::SamplingRng::Create(1);
    const jobs::JobRecord& job = server_->engine()->job();
    EXPECT_TRUE(algorithms::Get(job.config.algorithm)
                    .sum_rounds()
                    ->ApplySum(job.config, job.n, sum, count, **noise, model)
                    .ok());
    return model;
  }

  // Rounding moves each device's d' coordinates by < gamma each (L2 error
  // of the decoded sum < count sqrt(d') gamma, the rotation keeps norms);
  // prox-admm's server update is s += sum/n, z = prox(s) (paper 002
  // Alg. 3), prox 1-Lipschitz, n the enrolled devices.
  double Tolerance(uint32_t count) const {
    return count * std::sqrt(double(DdgPaddedDimension(plan_.dimension))) *
           plan_.gamma / double(server_->engine()->job().n);
  }

  int64_t Count(const std::string& sql) {
    auto stmt = db_.db().Prepare(sql);
    EXPECT_TRUE(stmt.ok()) << sql;
    EXPECT_TRUE(stmt->StepRow().ok()) << sql;
    return stmt->ColumnInt(0);
  }

  testing::TempDatabase db_;
  posix::CoapClientContext ctx_;
  std::unique_ptr<server::CoapServer> server_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<Device>> devices_;
  DdgRoundPlan plan_;
  testing::HeldServerClock clock_;
};

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(s);
}

TEST_F(SecAggJobCoapTest, DaemonCommitsTheDecodedSum) {
  const algorithms::ServerModel before = server_->engine()->model();
  const int64_t round_id = server_->engine()->open_secure_round()->round_id;
  RunRound(0);
  rounds::RoundEngine& engine = *server_->engine();
  ASSERT_EQ(engine.released_round_id(), round_id);
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices));
  const algorithms::ServerModel expected = Expected(before, kDevices);
  EXPECT_GT(Distance(expected.z, before.z), 5 * Tolerance(kDevices));
  std::printf("decoded model error %.3g (bound %.3g, gamma %.3g, b %u)\n",
              Distance(engine.model().z, expected.z), Tolerance(kDevices),
              plan_.gamma, plan_.bits);
  EXPECT_LE(Distance(engine.model().z, expected.z), Tolerance(kDevices));
  EXPECT_LE(Distance(engine.model().state, expected.state),
            Tolerance(kDevices));
  for (auto& d : devices_) EXPECT_TRUE(d->client->outcome().ok()) << d->id;
  EXPECT_EQ(Count("SELECT count(*) FROM uploads"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM ledger WHERE scope LIKE 'local:%'"),
            int64_t(kDevices));
}

TEST_F(SecAggJobCoapTest, OneDeviceGoneAfterPhaseTwoStillCommits) {
  const algorithms::ServerModel before = server_->engine()->model();
  const int64_t round_id = server_->engine()->open_secure_round()->round_id;
  RunRound(1);
  rounds::RoundEngine& engine = *server_->engine();
  ASSERT_EQ(engine.released_round_id(), round_id);
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices - 1));
  const algorithms::ServerModel expected = Expected(before, kDevices - 1);
  EXPECT_LE(Distance(engine.model().z, expected.z), Tolerance(kDevices - 1));
  // Not the six devices' sum.
  EXPECT_GT(Distance(engine.model().z, Expected(before, kDevices).z),
            Tolerance(kDevices));
}

TEST_F(SecAggJobCoapTest, BelowTheFloorDiscardsTheRound) {
  const algorithms::ServerModel before = server_->engine()->model();
  const int64_t round_id = server_->engine()->open_secure_round()->round_id;
  RunRound(2);  // 4 masked inputs, the floor is 5
  rounds::RoundEngine& engine = *server_->engine();
  EXPECT_EQ(engine.released_round_id(), 0);
  EXPECT_EQ(engine.iteration(), 0);
  EXPECT_EQ(engine.model().z, before.z);
  auto state = db_.db().Prepare("SELECT state FROM rounds WHERE round_id = " +
                                std::to_string(round_id));
  ASSERT_TRUE(state.ok());
  ASSERT_TRUE(state->StepRow().ok());
  EXPECT_EQ(state->ColumnText(0), "discarded");
  EXPECT_EQ(Count("SELECT count(*) FROM ledger"), 0);
  // The next round opens with a new id and seed.
  while (engine.open_secure_round() == nullptr) {
    ASSERT_NO_FATAL_FAILURE(TurnServer());
  }
  EXPECT_GT(engine.open_secure_round()->round_id, round_id);
}

}  // namespace
}  // namespace edgeadmm
