// DeviceClient runs paper 004's DP-ADMM step and the DP-SGD baseline from
// real encoded RoundTasks (wire::EncodeRoundTask) over a LoopbackTransport:
// the record is persisted before the upload, a reboot resends the identical
// bytes without recomputing, the local ledger is charged with the step's
// device-level sensitivity and noise, and malformed parameters are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "edgeadmm/device_client.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/fake/coap_endpoint.h"
#include "edgeadmm/fake/loopback_transport.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/penalty_perturbation_extra.h"
#include "edgeadmm/pp_output_perturbation.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm {
namespace {

constexpr size_t kSamples = 4;
constexpr size_t kDim = 3;
constexpr char kId[] = "dev-1";

// Serves one encoded task on v1/task, keeps every v1/update body and
// answers it with an OK receipt; v1/status reports are counted.
class TaskEndpoint final : public CoapEndpoint {
 public:
  void SetTask(const edgeadmm_wire_RoundTask& header,
               const std::vector<Real>& model,
               const std::vector<Real>& auxiliary = {}) {
    task_.resize(wire::MaxRoundTaskBytes(kDim));
    const StatusWithSize n = wire::EncodeRoundTask(
        header, Span<const Real>(model.data(), model.size()),
        Span<const Real>(auxiliary.data(), auxiliary.size()),
        ByteSpan(reinterpret_cast<std::byte*>(task_.data()), task_.size()));
    ASSERT_TRUE(n.ok()) << n.status().str();
    task_.resize(n.size());
    ++version_;
  }
  // Serves raw bytes (a task the encoder would refuse).
  void SetRawTask(std::vector<uint8_t> bytes) {
    task_ = std::move(bytes);
    ++version_;
  }
  const std::vector<uint8_t>& task_bytes() const { return task_; }

  CoapResponse Handle(const char*, const TransportRequest& request,
                      ByteSpan out) override {
    CoapResponse r;
    if (std::strcmp(request.path, wire::kTaskPath) == 0) {
      r.code = wire::kCoapContent;
      r.content_format = wire::kRoundTaskFormat;
      r.size = task_.size();
      std::memcpy(out.data(), task_.data(), task_.size());
      return r;
    }
    if (std::strcmp(request.path, wire::kStatusPath) == 0) {
      ++reports_;
      r.code = wire::kCoapChanged;
      return r;
    }
    const auto* body = reinterpret_cast<const uint8_t*>(request.payload.data());
    updates_.emplace_back(body, body + request.payload.size());
    const edgeadmm_wire_StatusBody receipt =
        wire::MakeStatusBody(Status::Ok(), "accepted", 0, 0);
    const StatusWithSize n = wire::EncodeStatusBody(receipt, out);
    r.code = wire::kCoapChanged;
    r.content_format = wire::kStatusBodyFormat;
    r.size = n.size();
    return r;
  }
  uint64_t ResourceVersion(const char*, const char*) override {
    return version_;
  }

  const std::vector<std::vector<uint8_t>>& updates() const { return updates_; }
  int reports() const { return reports_; }

 private:
  std::vector<uint8_t> task_;
  uint64_t version_ = 1;
  std::vector<std::vector<uint8_t>> updates_;
  int reports_ = 0;
};

struct Memory {
  alignas(16)
      std::byte trainer[DeviceClient::TrainerWorkspaceBytes(kSamples, kDim)];
  alignas(16) std::byte scratch[DeviceClient::ComputeScratchBytes(kDim)];
  alignas(16) std::byte client[DeviceClient::MemoryBytes(kDim)];
  alignas(16) std::byte
      storage[MemoryStorage::kMaxKeys * DeviceClient::RecordBytes(kDim)];
};

// Four records in 3 features (±1 labels).
const std::vector<Real> kFeatures = {1.0, 0.5,  -0.2, -0.3, 1.0, 0.4,
                                     0.8, -1.0, 0.1,  -0.6, 0.2, 1.0};
const std::vector<Real> kLabels = {1, -1, 1, -1};

edgeadmm_wire_RoundTask BaseTask(uint64_t round) {
  edgeadmm_wire_RoundTask t = edgeadmm_wire_RoundTask_init_zero;
  t.job_id = 9;
  t.round_id = round;
  t.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
  t.loss = edgeadmm_wire_Loss_LOSS_LOGISTIC;
  t.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_L2;
  t.regularizer_weight = 0.01;
  t.noise_placement = edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE;
  t.dimension = kDim;
  return t;
}

edgeadmm_wire_RoundTask DpAdmmTask(uint64_t round) {
  edgeadmm_wire_RoundTask t = BaseTask(round);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM;
  t.which_params = edgeadmm_wire_RoundTask_dp_admm_tag;
  edgeadmm_wire_DpAdmmParams& d = t.params.dp_admm;
  d.schedule = edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_SMOOTH;
  d.rho = 1.0;
  d.reg_weight = 10;
  d.num_devices = 10;
  d.iteration = static_cast<uint32_t>(round - 1);
  d.d_w = 1.0;
  d.s1 = d.clip = 1.0;
  d.s3 = 0.25;
  d.s4 = 0.01;
  d.epsilon = 0.5;
  d.delta = 1e-3;
  d.max_records = kSamples;
  return t;
}

edgeadmm_wire_RoundTask DpSgdTask(uint64_t round) {
  edgeadmm_wire_RoundTask t = BaseTask(round);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD;
  t.which_params = edgeadmm_wire_RoundTask_dp_sgd_tag;
  t.params.dp_sgd = {0.5, 2, 0.25, 0.75};
  return t;
}

// One device: its client over the endpoint, with storage that survives
// Reboot() (a new client instance on the same memory).
class Device {
 public:
  explicit Device(TaskEndpoint& endpoint)
      : memory_(std::make_unique<Memory>()),
        storage_(ByteSpan(memory_->storage, sizeof(memory_->storage))),
        transport_(endpoint, kId, LinkConfig{}) {
    data_ = *DatasetView::Create(
        Span<const Real>(kFeatures.data(), kFeatures.size()),
        Span<const Real>(kLabels.data(), kLabels.size()), kSamples, kDim);
  }

  Status Boot(bool halt_after_persist, bool allow_unaccounted = false) {
    client_ = std::make_unique<DeviceClient>();
    DeviceClientConfig& c = config_;
    c.device_id = kId;
    c.transport = &transport_;
    c.storage = &storage_;
    c.entropy = &entropy_;
    c.data = data_;
    c.trainer = &trainer_;
    c.trainer_workspace = ByteSpan(memory_->trainer, sizeof(memory_->trainer));
    c.compute_scratch = ByteSpan(memory_->scratch, sizeof(memory_->scratch));
    c.epsilon_budget = 1e6;
    c.delta = 1e-5;
    c.allow_unaccounted_steps = allow_unaccounted;
    c.use_observe = false;
    c.task_refresh_ms = 1000;
    c.halt_after_persist = halt_after_persist;
    c.penalty_schedule = penalty_schedule;
    return client_->Init(c, ByteSpan(memory_->client, sizeof(memory_->client)));
  }

  // Polls until `done()` or a simulated minute has passed.
  template <typename Done>
  void PollUntil(Done done) {
    for (int i = 0; i < 3000 && !done(); ++i) {
      now_ += 20;
      client_->Poll(now_).IgnoreError();
      transport_.Poll(0).status().IgnoreError();
    }
  }

  // The upload persisted in storage (empty if none is pending).
  std::vector<uint8_t> PendingInStorage() {
    static std::byte record[DeviceClient::RecordBytes(kDim)];
    const StatusWithSize read = storage_.Read("client", record);
    ClientRecordView view;
    if (!read.ok() ||
        !ParseClientRecord(ConstByteSpan(record, read.size()), view).ok() ||
        !view.has_pending) {
      return {};
    }
    const auto* p = reinterpret_cast<const uint8_t*>(view.upload.data());
    return std::vector<uint8_t>(p, p + view.upload.size());
  }

  DeviceClient& client() { return *client_; }
  LocalTrainer& trainer() { return trainer_; }
  PenaltySchedule penalty_schedule;  // pp-admm: read at Boot
  const DatasetView& data() const { return data_; }

 private:
  std::unique_ptr<Memory> memory_;
  MemoryStorage storage_;
  LoopbackTransport transport_;
  TestEntropy entropy_{77};
  DatasetView data_;
  LocalTrainer trainer_;
  DeviceClientConfig config_;
  std::unique_ptr<DeviceClient> client_;
  uint64_t now_ = 0;
};

struct DecodedUpload {
  wire::DecodedUpdate update{};
  std::vector<Real> vector = std::vector<Real>(kDim);
};

DecodedUpload Decode(const std::vector<uint8_t>& bytes) {
  DecodedUpload out;
  EXPECT_EQ(wire::DecodeUpdate(
                ConstByteSpan(reinterpret_cast<const std::byte*>(bytes.data()),
                              bytes.size()),
                Span<Real>(out.vector.data(), kDim), out.update),
            Status::Ok());
  return out;
}

// pp-admm's ε_i(T) in the upload's algorithm_extra (its δ in *delta);
// NaN if it does not hold one.
double PpLoss(const DecodedUpload& upload, double* delta = nullptr) {
  const auto& extra = upload.update.header.algorithm_extra;
  double epsilon = 0, d = 0;
  if (!DecodePpLossExtra(extra.bytes, extra.size, &epsilon, &d)) {
    return std::nan("");
  }
  if (delta != nullptr) *delta = d;
  return epsilon;
}

// A default-schedule node's ε after t iterations (η = 0.5, α = 3, C = 1,
// V = 4): paper 001's t·C(1.4c₁ + α)/(η V B) plus t approximate-minima
// releases of the default γ, z at δ = 1e-5 (pp_output_perturbation.h).
PpPrivacy ExpectedPp(uint32_t t) {
  const double pure = t * 1.0 * (1.4 * 0.25 + 3.0) / (0.5 * 4 * kSamples);
  const double sigma =
      2 * kPpDefaultOutputRadius * kPpDefaultOutputNoiseMultiplier;
  const double rho = t * *PpOutputZcdp(kPpDefaultOutputRadius, sigma, kDim);
  return *PpApproxDp(pure, rho, t * *PpSamplerTotalVariation(kDim), 1e-5);
}

// ε after `steps` Gaussian charges of (sensitivity, noise) at δ = 1e-5.
double LedgerEpsilon(double sensitivity, double noise, int steps) {
  DevicePrivacyLedger ledger;
  for (int i = 0; i < steps; ++i) {
    EXPECT_EQ(ledger.Charge(sensitivity, noise), Status::Ok());
  }
  return *ledger.Epsilon(1e-5);
}

// Persist before upload, then a reboot resends the same bytes, computing
// nothing; returns the upload.
std::vector<uint8_t> RunWithRebootBeforeUpload(TaskEndpoint& endpoint,
                                               Device& device) {
  const size_t before = endpoint.updates().size();
  EXPECT_EQ(device.Boot(/*halt_after_persist=*/true), Status::Ok());
  device.PollUntil(
      [&] { return device.client().state() == ClientState::kHalted; });
  EXPECT_EQ(device.client().state(), ClientState::kHalted);
  EXPECT_EQ(device.client().counters().steps_computed, 1u);
  EXPECT_EQ(endpoint.updates().size(), before);  // nothing left the device
  const std::vector<uint8_t> persisted = device.PendingInStorage();
  EXPECT_FALSE(persisted.empty());

  EXPECT_EQ(device.Boot(/*halt_after_persist=*/false), Status::Ok());
  device.PollUntil([&] { return endpoint.updates().size() > before; });
  EXPECT_EQ(device.client().counters().resumed_uploads, 1u);
  EXPECT_EQ(device.client().counters().steps_computed, 0u);
  EXPECT_EQ(endpoint.updates().size(), before + 1);
  if (endpoint.updates().size() == before + 1) {
    EXPECT_EQ(endpoint.updates().back(), persisted);  // identical bytes
  }
  device.PollUntil([&] { return device.client().pending_upload().empty(); });
  EXPECT_TRUE(device.PendingInStorage().empty());
  return persisted;
}

TEST(DeviceClientAlgorithmsTest, DpAdmmPersistsResendsChargesAndAppliesDual) {
  TaskEndpoint endpoint;
  endpoint.SetTask(DpAdmmTask(1), {0, 0, 0});
  Device device(endpoint);
  const DecodedUpload first =
      Decode(RunWithRebootBeforeUpload(endpoint, device));
  EXPECT_EQ(first.update.header.kind,
            edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL);
  EXPECT_EQ(first.update.header.round_id, 1u);
  EXPECT_EQ(first.update.header.ledger.participations, 1u);

  // The ledger is charged with the device-level replace-one sensitivity
  // 2 S1/(ρ + 1/η_1) plus the grid's g·√p (grid_gaussian.h) and paper 004's
  // σ_1 (Thm 1) at iteration k = 0.
  LinearizedAdmmParams p;
  p.rho = 1.0;
  p.reg_weight = 10;
  p.providers = 10;
  p.dw = 1.0;
  p.s1 = 1.0;
  p.s3 = 0.25;
  p.s4 = 0.01;
  p.epsilon = 0.5;
  p.delta = 1e-3;
  EXPECT_NEAR(p.DeviceSensitivity(0, kSamples),
              kSamples * p.Sensitivity(0, kSamples), 1e-15);
  const double sensitivity = p.GridDeviceSensitivity(0, kSamples, kDim);
  EXPECT_NEAR(sensitivity,
              p.DeviceSensitivity(0, kSamples) +
                  p.NoiseStd(0, kSamples) / 1024 * std::sqrt(double{kDim}),
              1e-12);
  EXPECT_NEAR(first.update.header.ledger.epsilon,
              LedgerEpsilon(sensitivity, p.NoiseStd(0, kSamples), 1), 1e-9);
  // The upload is the persisted noisy model w~_i (float32 on the wire).
  const Span<Real> w_tilde = device.trainer().state().primary;
  for (size_t j = 0; j < kDim; ++j) {
    EXPECT_NEAR(first.vector[j], w_tilde[j], 1e-6);
  }

  // Round 2 carries w^1: the device applies (3d) γ = −ρ(w~^1 − w^1) first.
  const std::vector<Real> w1 = {0.05, -0.02, 0.01};
  endpoint.SetTask(DpAdmmTask(2), w1);
  device.PollUntil([&] { return endpoint.updates().size() == 2; });
  ASSERT_EQ(endpoint.updates().size(), 2u);
  const Span<Real> gamma = device.trainer().state().secondary;
  for (size_t j = 0; j < kDim; ++j) {
    EXPECT_NEAR(gamma[j], -1.0 * (first.vector[j] - w1[j]), 1e-6) << j;
  }
  const DecodedUpload second = Decode(endpoint.updates()[1]);
  EXPECT_EQ(second.update.header.ledger.participations, 2u);
  EXPECT_NEAR(
      second.update.header.ledger.epsilon,
      [&] {
        DevicePrivacyLedger ledger;
        EXPECT_TRUE(ledger.Charge(sensitivity, p.NoiseStd(0, kSamples)).ok());
        EXPECT_TRUE(ledger
                        .Charge(p.GridDeviceSensitivity(1, kSamples, kDim),
                                p.NoiseStd(1, kSamples))
                        .ok());
        return *ledger.Epsilon(1e-5);
      }(),
      1e-9);
}

TEST(DeviceClientAlgorithmsTest, DpSgdPersistsResendsAndCharges) {
  TaskEndpoint endpoint;
  endpoint.SetTask(DpSgdTask(1), {0.1, -0.1, 0.2});
  Device device(endpoint);
  const DecodedUpload up = Decode(RunWithRebootBeforeUpload(endpoint, device));
  EXPECT_EQ(up.update.header.kind,
            edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U);
  EXPECT_EQ(up.update.header.ledger.participations, 1u);
  // Replace-one sensitivity 2C of Clip(w − z, C) plus the grid's g·√p
  // (g = σ/1024, p = 3), noise σ.
  const double sensitivity = 2 * 0.25 + 0.75 / 1024 * std::sqrt(3.0);
  EXPECT_NEAR(up.update.header.ledger.epsilon,
              LedgerEpsilon(sensitivity, 0.75, 1), 1e-9);
  double norm = 0;
  for (Real v : up.vector) norm += v * v;
  EXPECT_GT(norm, 0.0);
}

TEST(DeviceClientAlgorithmsTest, DpSgdWithoutNoiseIsTheClippedLocalChange) {
  TaskEndpoint endpoint;
  edgeadmm_wire_RoundTask t = DpSgdTask(1);
  t.params.dp_sgd.sigma = 0;
  t.params.dp_sgd.clip = 0.05;
  const std::vector<Real> z = {0.1, -0.1, 0.2};
  endpoint.SetTask(t, z);
  Device device(endpoint);
  // σ = 0 has no local guarantee: refused unless explicitly allowed.
  ASSERT_EQ(device.Boot(false), Status::Ok());
  device.PollUntil([&] { return device.client().counters().steps_refused; });
  EXPECT_EQ(device.client().last_error(), Status::FailedPrecondition());
  EXPECT_TRUE(endpoint.updates().empty());

  Device allowed(endpoint);
  ASSERT_EQ(allowed.Boot(false, /*allow_unaccounted=*/true), Status::Ok());
  allowed.PollUntil([&] { return !endpoint.updates().empty(); });
  ASSERT_EQ(endpoint.updates().size(), 1u);
  const DecodedUpload up = Decode(endpoint.updates()[0]);
  double norm = 0;
  for (Real v : up.vector) norm += v * v;
  EXPECT_NEAR(std::sqrt(norm), 0.05, 1e-6);  // clipped to C
}

// Refusals: each is counted, reported once on v1/status, and sends nothing.
void ExpectRefused(const edgeadmm_wire_RoundTask& task, Status expected,
                   const std::vector<Real>& auxiliary = {}) {
  TaskEndpoint endpoint;
  endpoint.SetTask(task, {0, 0, 0}, auxiliary);
  Device device(endpoint);
  ASSERT_EQ(device.Boot(false), Status::Ok());
  device.PollUntil([&] { return endpoint.reports() > 0; });
  EXPECT_EQ(device.client().counters().steps_refused, 1u);
  EXPECT_EQ(device.client().counters().steps_computed, 0u);
  EXPECT_EQ(device.client().last_error(), expected);
  EXPECT_EQ(endpoint.reports(), 1);
  EXPECT_TRUE(endpoint.updates().empty());
  EXPECT_TRUE(device.PendingInStorage().empty());
}

TEST(DeviceClientAlgorithmsTest, RefusesTasksItCannotRunSoundly) {
  // More records than the aggregator charges for.
  edgeadmm_wire_RoundTask t = DpAdmmTask(1);
  t.params.dp_admm.max_records = kSamples - 1;
  ExpectRefused(t, Status::FailedPrecondition());
  // A gradient clip other than S1 breaks Lemma 1's sensitivity.
  t = DpAdmmTask(1);
  t.params.dp_admm.clip = 2.0;
  ExpectRefused(t, Status::InvalidArgument());
  // The noiseless baseline without allow_unaccounted_steps.
  t = DpAdmmTask(1);
  t.params.dp_admm.noiseless = true;
  ExpectRefused(t, Status::FailedPrecondition());
}

// A pp-admm task (paper 001 over the complete graph of N = 5 nodes):
// iteration t of T, the model is f̄(t−1).
edgeadmm_wire_RoundTask PenaltyTask(uint64_t round, uint32_t iteration,
                                    uint32_t rounds = 2) {
  edgeadmm_wire_RoundTask t = BaseTask(round);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION;
  t.which_params = edgeadmm_wire_RoundTask_penalty_tag;
  t.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_NONE;
  t.regularizer_weight = 0;
  edgeadmm_wire_PenaltyPerturbationParams& p = t.params.penalty;
  p.theta = 0.5;
  p.reg_weight = 0.1;
  p.loss_weight = 1.0;
  p.iteration = iteration;
  p.nodes = 5;
  p.degree = 4;
  p.rounds = rounds;
  return t;
}

TEST(DeviceClientAlgorithmsTest, PpAdmmAppliesTheDualAndReportsPOnlyAtTheEnd) {
  TaskEndpoint endpoint;
  endpoint.SetTask(PenaltyTask(1, 1), {0, 0, 0});
  Device device(endpoint);
  const DecodedUpload first =
      Decode(RunWithRebootBeforeUpload(endpoint, device));
  EXPECT_EQ(first.update.header.kind,
            edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL);
  // P_i is a function of the private schedule: not sent before T.
  EXPECT_EQ(first.update.header.algorithm_extra.size, 0u);
  // Not a Gaussian step: the Gaussian ledger is not charged.
  EXPECT_EQ(first.update.header.ledger.participations, 0u);
  const std::vector<Real> f1(device.trainer().state().primary.begin(),
                             device.trainer().state().primary.end());
  for (size_t j = 0; j < kDim; ++j) EXPECT_NEAR(first.vector[j], f1[j], 1e-6);

  // Iteration 2 carries f̄(1): S_i(1) = N f̄(1) − f_i(1) and (11)
  // λ_i(1) = (θ/2)(V f_i(1) − S_i(1)) before the step.
  const std::vector<Real> mean = {0.0625, -0.03125, 0.015625};  // float32
  endpoint.SetTask(PenaltyTask(2, 2), mean);
  device.PollUntil([&] { return endpoint.updates().size() == 2; });
  ASSERT_EQ(endpoint.updates().size(), 2u);
  const Span<Real> dual = device.trainer().state().secondary;
  for (size_t j = 0; j < kDim; ++j) {
    const double s = 5 * mean[j] - f1[j];
    EXPECT_NEAR(dual[j], 0.25 * (4 * f1[j] - s), 1e-12) << j;
  }
  // The last iteration reports (ε, δ) of two steps: paper 001's
  // Σ_r C(1.4c₁ + α)/(η V B) with the device's default schedule (η = 0.5,
  // α = 3, no growth) plus two releases (ExpectedPp), more than the paper's
  // sum alone (the number reported before the release was charged).
  const DecodedUpload second = Decode(endpoint.updates()[1]);
  double delta = 0;
  EXPECT_NEAR(PpLoss(second, &delta), ExpectedPp(2).epsilon, 1e-12);
  // δ = 1e-5 + (1 + e^ε)·2τ, τ now carrying the rounding-flip term.
  EXPECT_NEAR(delta, ExpectedPp(2).delta, 1e-18);
  EXPECT_GT(delta, 1e-5 + 1e-10);
  EXPECT_GT(PpLoss(second),
            2 * 1.0 * (1.4 * 0.25 + 3.0) / (0.5 * 4 * kSamples) + 0.01);
  // f_i(2), which was uploaded (as float32) and which the next dual update
  // uses, is the release, on its grid of step σ/2^10.
  const double grid = 2 * kPpDefaultOutputRadius *
                      kPpDefaultOutputNoiseMultiplier / (1 << kNoiseGridBits);
  const Span<Real> f2 = device.trainer().state().primary;
  for (size_t j = 0; j < kDim; ++j) {
    const double steps = static_cast<double>(f2[j]) / grid;
    EXPECT_NEAR(steps, std::round(steps), 1e-6) << j;
    EXPECT_NEAR(second.vector[j], f2[j], 1e-6 * std::fabs(f2[j])) << j;
  }
}

TEST(DeviceClientAlgorithmsTest, PpAdmmResendsALostIterationAndRefusesAGap) {
  TaskEndpoint endpoint;
  endpoint.SetTask(PenaltyTask(1, 1, 5), {0, 0, 0});
  Device device(endpoint);
  ASSERT_EQ(device.Boot(false), Status::Ok());
  device.PollUntil([&] { return endpoint.updates().size() == 1; });
  ASSERT_EQ(endpoint.updates().size(), 1u);
  // The aggregator lost round 1 (restart) and asks iteration 1 again in
  // round 2: the same f_i(1), no new solve, no new noise.
  endpoint.SetTask(PenaltyTask(2, 1, 5), {0, 0, 0});
  device.PollUntil([&] { return endpoint.updates().size() == 2; });
  ASSERT_EQ(endpoint.updates().size(), 2u);
  EXPECT_EQ(Decode(endpoint.updates()[1]).vector,
            Decode(endpoint.updates()[0]).vector);
  EXPECT_EQ(device.trainer().state().local_iteration, 1u);
  // A node that missed iteration 2 cannot take part in iteration 3.
  endpoint.SetTask(PenaltyTask(3, 3, 5), {0, 0, 0});
  device.PollUntil([&] { return endpoint.reports() > 0; });
  EXPECT_EQ(device.client().last_error(), Status::FailedPrecondition());
  EXPECT_EQ(endpoint.updates().size(), 2u);
}

// β_max: the whole job's ε_i(T) is known from the schedule at iteration 1.
TEST(DeviceClientAlgorithmsTest, PpAdmmRefusesAJobWhosePExceedsItsCap) {
  // ε_i(5) with the default schedule (ExpectedPp).
  const double p5 = ExpectedPp(5).epsilon;
  TaskEndpoint endpoint;
  endpoint.SetTask(PenaltyTask(1, 1, 5), {0, 0, 0});
  Device capped(endpoint);
  capped.penalty_schedule.max_loss = p5 * (1 - 1e-9);
  ASSERT_EQ(capped.Boot(false), Status::Ok());
  capped.PollUntil([&] { return endpoint.reports() > 0; });
  EXPECT_EQ(capped.client().last_error(), Status::ResourceExhausted());
  EXPECT_EQ(capped.client().counters().steps_computed, 0u);
  EXPECT_EQ(endpoint.reports(), 1);  // "local privacy budget exhausted"
  EXPECT_TRUE(endpoint.updates().empty());
  EXPECT_TRUE(capped.PendingInStorage().empty());

  // At the cap exactly, the device runs the job and reports P_i(T) = β_max.
  Device at_cap(endpoint);
  at_cap.penalty_schedule.max_loss = p5;
  ASSERT_EQ(at_cap.Boot(false), Status::Ok());
  for (uint32_t t = 1; t <= 5; ++t) {
    endpoint.SetTask(PenaltyTask(t, t, 5), {0, 0, 0});
    at_cap.PollUntil([&] { return endpoint.updates().size() == t; });
    ASSERT_EQ(endpoint.updates().size(), t);
  }
  EXPECT_NEAR(PpLoss(Decode(endpoint.updates().back())), p5, 1e-12);

  // A negative or NaN cap is a configuration error, not "no cap".
  for (const double bad : {-1.0, std::nan("")}) {
    TaskEndpoint e;
    e.SetTask(PenaltyTask(1, 1, 5), {0, 0, 0});
    Device device(e);
    device.penalty_schedule.max_loss = bad;
    ASSERT_EQ(device.Boot(false), Status::Ok());
    device.PollUntil([&] { return e.reports() > 0; });
    EXPECT_EQ(device.client().last_error(), Status::InvalidArgument()) << bad;
    EXPECT_TRUE(e.updates().empty());
  }
}

TEST(DeviceClientAlgorithmsTest, PpAdmmOnARingTakesItsNeighbourSumAsSent) {
  edgeadmm_wire_RoundTask first = PenaltyTask(1, 1);
  first.params.penalty.neighbour_sum = true;
  first.params.penalty.degree = 2;
  TaskEndpoint endpoint;
  endpoint.SetTask(first, {0, 0, 0});
  Device device(endpoint);
  ASSERT_EQ(device.Boot(false), Status::Ok());
  device.PollUntil([&] { return endpoint.updates().size() == 1; });
  ASSERT_EQ(endpoint.updates().size(), 1u);
  const std::vector<Real> f1(device.trainer().state().primary.begin(),
                             device.trainer().state().primary.end());
  // Iteration 2 carries S_i(1) itself: λ_i(1) = (θ/2)(V_i f_i(1) − S_i(1))
  // with V_i = 2.
  edgeadmm_wire_RoundTask second = PenaltyTask(2, 2);
  second.params.penalty.neighbour_sum = true;
  second.params.penalty.degree = 2;
  const std::vector<Real> sum = {0.125, -0.25, 0.5};
  endpoint.SetTask(second, sum);
  device.PollUntil([&] { return endpoint.updates().size() == 2; });
  ASSERT_EQ(endpoint.updates().size(), 2u);
  const Span<Real> dual = device.trainer().state().secondary;
  for (size_t j = 0; j < kDim; ++j) {
    EXPECT_NEAR(dual[j], 0.25 * (2 * f1[j] - sum[j]), 1e-12) << j;
  }
}

TEST(DeviceClientAlgorithmsTest, PpAdmmNoiselessNeedsUnaccountedSteps) {
  edgeadmm_wire_RoundTask t = PenaltyTask(1, 1);
  t.params.penalty.noiseless = true;
  ExpectRefused(t, Status::FailedPrecondition());
}

TEST(DeviceClientAlgorithmsTest, MalformedParamsAreRefusedAtDecode) {
  // A valid dp-sgd task whose learning rate (0.5) is patched to -0.5 on the
  // wire: the adapter's params check, right after the decode, refuses it and
  // nothing is computed or reported.
  TaskEndpoint endpoint;
  endpoint.SetTask(DpSgdTask(1), {0, 0, 0});
  std::vector<uint8_t> bytes = endpoint.task_bytes();
  const double good = 0.5;
  const double bad = -0.5;
  uint8_t pattern[8];
  std::memcpy(pattern, &good, 8);
  size_t found = 0;
  for (size_t i = 0; i + 8 <= bytes.size(); ++i) {
    if (std::memcmp(&bytes[i], pattern, 8) == 0) {
      std::memcpy(&bytes[i], &bad, 8);
      ++found;
    }
  }
  ASSERT_EQ(found, 1u);
  endpoint.SetRawTask(bytes);
  Device device(endpoint);
  ASSERT_EQ(device.Boot(false), Status::Ok());
  device.PollUntil([&] { return device.client().counters().tasks_invalid; });
  EXPECT_GE(device.client().counters().tasks_invalid, 1u);
  EXPECT_EQ(device.client().counters().steps_computed, 0u);
  EXPECT_EQ(device.client().last_error(), Status::InvalidArgument());
  EXPECT_TRUE(endpoint.updates().empty());
}

}  // namespace
}  // namespace edgeadmm
