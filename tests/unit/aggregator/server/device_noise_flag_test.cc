// The job's privacy policy reaches the device's local step: the aggregator's
// RequestHandler serves the task, the SDK's DeviceClient computes the paper
// 002 step (prox_admm_step.h) over a LoopbackTransport, and the test compares
// the device's persisted u_i with the Δu it uploaded.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/device_client.h"
#include "edgeadmm/fake/coap_endpoint.h"
#include "edgeadmm/fake/loopback_transport.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/update.h"
#include "handler_endpoint.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

constexpr size_t kSamples = 4;
constexpr size_t kDim = 3;  // JobToml's dimension
constexpr double kLambda = 0.5;
constexpr double kClip = 1.0;

struct DeviceMemory {
  alignas(16) std::byte trainer[LocalStepWorkspaceBytes(
      AlgorithmKind::kProxAdmm, LossKind::kLogistic, kSamples, kDim)];
  alignas(16) std::byte scratch[DeviceClient::ComputeScratchBytes(kDim)];
  alignas(16) std::byte client[DeviceClient::MemoryBytes(kDim)];
  alignas(16) std::byte
      storage[MemoryStorage::kMaxKeys * DeviceClient::RecordBytes(kDim)];
};

// What one device did in its first round.
struct Step {
  std::vector<double> u;        // persisted u_i (started at 0)
  std::vector<double> delta_u;  // uploaded Δu (float32 on the wire)
};

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

double Norm(const std::vector<double>& a) {
  return Distance(a, std::vector<double>(a.size(), 0.0));
}

// Runs one paper-002 round of one device against a job whose [privacy]
// table has `policy` and the extra lines `extra` (λ = 0.5, C = 1, σ = 2).
Step RunFirstStep(const std::string& policy, const std::string& extra) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 3);
  const int64_t job = testing::StartEveryoneJob(
      t.db(), "flag", testing::PrivacyTableWithPolicy(policy, extra));
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  EXPECT_TRUE(engine.ok());
  if (!engine.ok()) return {};
  EXPECT_TRUE((*engine)->Advance(0).ok());
  RequestHandler handler(nullptr);
  handler.set_engine(engine->get());
  HandlerEndpoint endpoint(handler, **engine);

  // Four logistic records in 3 features, labels ±1.
  const std::vector<Real> features = {1.0, 0.5,  -0.2, -0.3, 1.0, 0.4,
                                      0.8, -1.0, 0.1,  -0.6, 0.2, 1.0};
  const std::vector<Real> labels = {1, -1, 1, -1};
  auto data = DatasetView::Create(
      Span<const Real>(features.data(), features.size()),
      Span<const Real>(labels.data(), labels.size()), kSamples, kDim);
  EXPECT_TRUE(data.ok());
  auto memory = std::make_unique<DeviceMemory>();
  const std::string id = (*engine)->devices()[0];
  TestEntropy entropy(42);
  MemoryStorage storage(ByteSpan(memory->storage, sizeof(memory->storage)));
  LoopbackTransport transport(endpoint, id.c_str(), LinkConfig{});
  LocalTrainer trainer;
  DeviceClientConfig config;
  config.device_id = id.c_str();
  config.transport = &transport;
  config.storage = &storage;
  config.entropy = &entropy;
  config.data = *data;
  config.trainer = &trainer;
  config.trainer_workspace = ByteSpan(memory->trainer, sizeof(memory->trainer));
  config.compute_scratch = ByteSpan(memory->scratch, sizeof(memory->scratch));
  config.epsilon_budget = 1e6;
  config.allow_unaccounted_steps = true;  // trusted-aggregator: σ = 0 here
  DeviceClient client;
  EXPECT_EQ(
      client.Init(config, ByteSpan(memory->client, sizeof(memory->client))),
      Status::Ok());
  for (uint64_t now = 0;
       now < 100000 && client.counters().uploads_accepted == 0; now += 100) {
    client.Poll(now).IgnoreError();
    transport.Poll(0).status().IgnoreError();
  }
  EXPECT_EQ(client.counters().steps_computed, 1u);
  EXPECT_EQ(client.counters().uploads_accepted, 1u);

  Step step;
  const Span<Real> u = trainer.state().primary;
  step.u.assign(u.begin(), u.end());
  std::vector<Real> vector(kDim);
  wire::DecodedUpdate update{};
  EXPECT_EQ(
      wire::DecodeUpdate(ConstByteSpan(reinterpret_cast<const std::byte*>(
                                           endpoint.last_update().data()),
                                       endpoint.last_update().size()),
                         Span<Real>(vector.data(), vector.size()), update),
      Status::Ok());
  step.delta_u.assign(update.vector.begin(), update.vector.end());
  EXPECT_EQ(step.u.size(), kDim);
  EXPECT_EQ(step.delta_u.size(), kDim);
  return step;
}

TEST(DeviceNoiseFlagTest, PolicyDecidesWhetherUKeepsTheNoise) {
  // trusted-aggregator: the device adds no noise, so Δu = u = 2λ·Clip(x − z)
  // (z = 0, u = 0 before the step) — the noiseless reference.
  const Step clean = RunFirstStep("trusted-aggregator", "");
  ASSERT_EQ(clean.u.size(), kDim);
  EXPECT_LT(Distance(clean.u, clean.delta_u), 1e-6);
  EXPECT_GT(Norm(clean.u), 1e-3);
  EXPECT_LE(Norm(clean.u), 2 * kLambda * kClip * (1 + 1e-9));

  // participation: the noise (std λσ = 1 per coordinate) goes on the wire
  // only; u_i takes exactly the noiseless term.
  const Step wire_only = RunFirstStep("participation", "");
  ASSERT_EQ(wire_only.u.size(), kDim);
  EXPECT_LT(Distance(wire_only.u, clean.u), 1e-6);
  EXPECT_GT(Distance(wire_only.delta_u, wire_only.u), 0.05);

  // participation-own-noise with noise_in_state: paper 002 as printed,
  // u_i = Δu including the noise.
  const Step in_state =
      RunFirstStep("participation-own-noise", "noise_in_state = true");
  ASSERT_EQ(in_state.u.size(), kDim);
  EXPECT_LT(Distance(in_state.u, in_state.delta_u), 1e-6);
  EXPECT_GT(Distance(in_state.u, clean.u), 0.05);
}

}  // namespace
}  // namespace edgeadmm::server
