#include "edgeadmm/device_client.h"

#include <cmath>
#include <cstring>
#include <new>

#include "client_test_rig.h"
#include "edgeadmm/crc32.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/update.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using testing::ClientRig;
using testing::kRigDevices;
using testing::kRigDim;
using testing::RigDevice;

alignas(ClientRig) unsigned char rig_storage[sizeof(ClientRig)];
// A copy of a persisted upload, compared with what the aggregator accepted.
std::byte saved_upload[wire::MaxUpdateBytes(kRigDim)];

class DeviceClientTest : public ::testing::Test {
 protected:
  ClientRig& MakeRig(
      const LinkConfig& link,
      const FakeAggregatorConfig& config = ClientRig::DefaultConfig()) {
    rig_ = new (rig_storage) ClientRig(link, config);
    return *rig_;
  }
  void TearDown() override {
    if (rig_ != nullptr) rig_->~ClientRig();
    rig_ = nullptr;
  }
  // Device 0 of a lossless rig, started on `transport` with a 1 s
  // task_refresh_ms (growing to at most `refresh_max_ms`).
  RigDevice& StartOn(
      Transport& transport,
      uint32_t refresh_max_ms = DeviceClientConfig{}.task_refresh_max_ms) {
    RigDevice& d = MakeRig(LinkConfig{}).device(0);
    DeviceClientConfig config = d.config;
    config.transport = &transport;
    config.task_refresh_ms = kRefreshMs;
    config.task_refresh_max_ms = refresh_max_ms;
    EXPECT_TRUE(d.client.Init(config, d.memory()).ok());
    return d;
  }
  static constexpr uint32_t kRefreshMs = 1000;
  // Polls `device` until it reaches `state` (true) or gives up.
  bool PollUntil(RigDevice& device, ClientState state, size_t max = 1000) {
    for (size_t i = 0; i < max && device.client.state() != state; ++i) {
      device.client.Poll(rig_->now_ms()).IgnoreError();
      device.transport.Poll(0).status().IgnoreError();
    }
    return device.client.state() == state;
  }
  // Copies the pending upload stored in `device`'s storage.
  size_t SavePendingUpload(RigDevice& device) {
    static std::byte record[DeviceClient::RecordBytes(kRigDim)];
    const StatusWithSize read = device.storage.Read("client", record);
    EXPECT_TRUE(read.ok());
    ClientRecordView view;
    EXPECT_TRUE(
        ParseClientRecord(ConstByteSpan(record, read.size()), view).ok());
    EXPECT_TRUE(view.has_pending);
    std::memcpy(saved_upload, view.upload.data(), view.upload.size());
    return view.upload.size();
  }

  ClientRig* rig_ = nullptr;
};

TEST_F(DeviceClientTest, EveryDeviceUploadsOncePerRoundAndTheModelMoves) {
  ClientRig& rig = MakeRig(LinkConfig{});
  for (uint64_t round = 1; round <= 3; ++round) {
    ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices)) << round;
    if (round < 3) {
      rig.server().AdvanceRound();
    } else {
      rig.server().Finish();
    }
  }
  ASSERT_TRUE(rig.Drain());
  Real norm = 0;
  for (Real z : rig.server().model()) norm += z * z;
  EXPECT_GT(norm, 0.0);
  for (size_t i = 0; i < kRigDevices; ++i) {
    RigDevice& d = rig.device(i);
    const FakeDeviceEntry* e = rig.server().Find(d.id);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->accepted, 3u);
    EXPECT_EQ(e->duplicates, 0u);
    EXPECT_EQ(e->conflicts, 0u);
    EXPECT_EQ(d.client.counters().steps_computed, 3u);
    EXPECT_EQ(d.client.counters().uploads_accepted, 3u);
    EXPECT_TRUE(d.client.pending_upload().empty());
    uint64_t job = 0;
    uint64_t round = 0;
    ASSERT_TRUE(d.client.last_step(job, round));
    EXPECT_EQ(job, 7u);
    EXPECT_EQ(round, 3u);
  }
}

// DeviceClientConfig::job: the task requests go to the job's own task,
// v1/task/<name>; a name outside the job-name alphabet or longer than 64 is
// refused at Init.
TEST_F(DeviceClientTest, AJobSelectorGoesWithEveryTaskRequest) {
  ClientRig& rig = MakeRig(LinkConfig{});
  for (size_t i = 0; i < kRigDevices; ++i) {
    rig.device(i).config.job = "hvac-1";
    ASSERT_TRUE(rig.device(i).Reboot(false).ok());
  }
  ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices));
  EXPECT_STREQ(rig.server().last_task_job(), "hvac-1");
  RigDevice& d = rig.device(0);
  char longest[66] = {};
  std::memset(longest, 'j', 65);
  const char* const bads[] = {"has space", "a&b", "job?", "a/b", longest};
  for (const char* bad : bads) {
    d.config.job = bad;
    EXPECT_EQ(d.Reboot(false), Status::InvalidArgument()) << bad;
  }
  longest[64] = '\0';  // 64 characters: the longest job name
  d.config.job = longest;
  EXPECT_TRUE(d.Reboot(false).ok());
}

// The upload is the paper 002 local step at the task's model: the same
// bytes a LocalTrainer computes from the same state, entropy and z.
TEST_F(DeviceClientTest, UploadIsTheLocalStepAtTheTasksModel) {
  ClientRig& rig = MakeRig(LinkConfig{});
  Real* z = testing::TheRigMemory().model;
  for (size_t i = 0; i < kRigDim; ++i) z[i] = 0.1 * static_cast<Real>(i + 1);
  RigDevice& d = rig.device(0);
  ASSERT_TRUE(d.Reboot(/*halt_after_persist=*/true).ok());  // entropy 5000
  ASSERT_TRUE(PollUntil(d, ClientState::kHalted));
  const size_t size = SavePendingUpload(d);
  static Real sent[kRigDim];
  wire::DecodedUpdate update;
  ASSERT_TRUE(
      wire::DecodeUpdate(ConstByteSpan(saved_upload, size), sent, update).ok());
  EXPECT_EQ(update.header.round_id, 1u);
  EXPECT_EQ(update.header.ledger.participations, 1u);

  // Reference: a fresh trainer with the same entropy stream and state.
  alignas(16) static std::byte workspace[testing::kRigTrainerBytes];
  static LocalTrainer reference;
  TestEntropy entropy(5000);
  TrainerConfig tc;
  tc.algorithm = AlgorithmKind::kProxAdmm;
  tc.job_id = 7;
  tc.entropy = &entropy;
  tc.personalization = ConstByteSpan(reinterpret_cast<const std::byte*>(d.id),
                                     std::strlen(d.id));
  tc.epsilon_budget = d.config.epsilon_budget;
  tc.delta = d.config.delta;
  ASSERT_TRUE(reference.Init(workspace, d.config.data, tc).ok());
  ProxAdmmParams params;
  const FakeAggregatorConfig job = ClientRig::DefaultConfig();
  params.lambda = job.lambda;
  params.step = job.gamma;
  params.clip = job.clip;
  params.sigma = job.sigma;
  static Real expected[kRigDim];
  ASSERT_TRUE(RunProxAdmm(reference, params, 1, Span<const Real>(z, kRigDim),
                          Span<Real>(expected, kRigDim))
                  .ok());
  Real difference = 0;
  for (size_t i = 0; i < kRigDim; ++i) {
    EXPECT_NEAR(sent[i], expected[i], 1e-6 * (1 + std::fabs(expected[i]))) << i;
    difference += std::fabs(expected[i]);
  }
  EXPECT_GT(difference, 0.0);
  // The same step at z = 0 gives another update (the model matters).
  TestEntropy entropy2(5000);
  tc.entropy = &entropy2;
  ASSERT_TRUE(reference.Init(workspace, d.config.data, tc).ok());
  static Real zeros[kRigDim];
  static Real at_zero[kRigDim];
  ASSERT_TRUE(RunProxAdmm(reference, params, 1,
                          Span<const Real>(zeros, kRigDim),
                          Span<Real>(at_zero, kRigDim))
                  .ok());
  Real gap = 0;
  for (size_t i = 0; i < kRigDim; ++i) gap += std::fabs(at_zero[i] - sent[i]);
  EXPECT_GT(gap, 1e-3);
}

TEST_F(DeviceClientTest, AComputedRoundIsNeverComputedAgain) {
  ClientRig& rig = MakeRig(LinkConfig{});
  ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices));
  // The task stays the same round for a long time (re-registrations, task
  // refreshes): nothing is recomputed or resent.
  for (int i = 0; i < 500; ++i) rig.PollOnce();
  for (size_t i = 0; i < kRigDevices; ++i) {
    EXPECT_EQ(rig.device(i).client.counters().steps_computed, 1u);
    EXPECT_EQ(rig.device(i).client.counters().upload_attempts, 1u);
    EXPECT_GT(rig.device(i).client.counters().tasks_received, 1u);
  }
  EXPECT_EQ(rig.server().totals().accepted, kRigDevices);
}

// Must-show: with 30% datagram loss every upload is delivered exactly once.
void ExpectExactlyOnceUnderLoss(DeviceClientTest& test, ClientRig& rig,
                                uint32_t rounds) {
  for (uint32_t r = 0; r < rounds; ++r) {
    ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices)) << "round " << r;
    if (r + 1 < rounds) {
      rig.server().AdvanceRound();
    } else {
      rig.server().Finish();  // receipts still in flight come as duplicates
    }
  }
  ASSERT_TRUE(rig.Drain());
  (void)test;
  uint64_t lost = 0;
  for (size_t i = 0; i < kRigDevices; ++i) {
    RigDevice& d = rig.device(i);
    const FakeDeviceEntry* e = rig.server().Find(d.id);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->accepted, rounds) << d.id;
    EXPECT_EQ(e->conflicts, 0u) << d.id;
    // One local step per round: no upload was ever recomputed.
    EXPECT_EQ(d.client.counters().steps_computed, rounds) << d.id;
    // Every upload got its receipt (first copy or duplicate).
    EXPECT_EQ(d.client.counters().uploads_accepted +
                  d.client.counters().uploads_duplicate,
              rounds)
        << d.id;
    lost += d.transport.stats().datagrams_lost;
  }
  EXPECT_GT(lost, 0u);
}

TEST_F(DeviceClientTest, ThirtyPercentLossDeliversEveryUploadExactlyOnce) {
  LinkConfig link;
  link.loss_per_million = 300000;
  link.seed = 11;
  ClientRig& rig = MakeRig(link);
  ExpectExactlyOnceUnderLoss(*this, rig, 12);
}

TEST_F(DeviceClientTest, LossWithFewRetransmissionsCausesDuplicateReceipts) {
  // With one retransmission a third of the exchanges time out, often after
  // the aggregator accepted the upload: the resend gets a duplicate receipt
  // and is not counted twice.
  LinkConfig link;
  link.loss_per_million = 300000;
  link.max_retransmit = 1;
  link.seed = 5;
  ClientRig& rig = MakeRig(link);
  ExpectExactlyOnceUnderLoss(*this, rig, 12);
  EXPECT_GT(rig.server().totals().duplicates, 0u);
  uint32_t transport_errors = 0;
  for (size_t i = 0; i < kRigDevices; ++i) {
    transport_errors += rig.device(i).client.counters().transport_errors;
  }
  EXPECT_GT(transport_errors, 0u);
}

// Must-show: a device killed between persisting and uploading resends the
// same bytes after a restart, never a freshly noised update.
TEST_F(DeviceClientTest, RebootBetweenPersistAndUploadResendsTheSameBytes) {
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(0);
  ASSERT_TRUE(d.Reboot(/*halt_after_persist=*/true).ok());
  ASSERT_TRUE(PollUntil(d, ClientState::kHalted));
  EXPECT_EQ(d.client.counters().steps_computed, 1u);
  EXPECT_EQ(d.client.counters().upload_attempts, 0u);
  EXPECT_EQ(rig.server().Find(d.id)->accepted, 0u);
  const size_t size = SavePendingUpload(d);
  ASSERT_GT(size, 0u);

  ASSERT_TRUE(d.Reboot(/*halt_after_persist=*/false).ok());
  ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices));
  const FakeDeviceEntry* e = rig.server().Find(d.id);
  EXPECT_EQ(e->accepted, 1u);
  EXPECT_EQ(e->accepted_size, size);
  EXPECT_EQ(e->accepted_crc, Crc32(ConstByteSpan(saved_upload, size)));
  EXPECT_EQ(d.client.counters().resumed_uploads, 1u);
  EXPECT_EQ(d.client.counters().steps_computed, 0u);  // not recomputed
  EXPECT_EQ(d.client.counters().uploads_accepted, 1u);
}

TEST_F(DeviceClientTest, RebootAfterAnAcceptedUploadGetsADuplicateReceipt) {
  // The receipt was lost (the stored record still holds the upload): the
  // restarted device resends it and the aggregator does not count it twice.
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(1);
  ASSERT_TRUE(d.Reboot(true).ok());
  ASSERT_TRUE(PollUntil(d, ClientState::kHalted));
  const size_t size = SavePendingUpload(d);
  // Deliver those bytes to the aggregator behind the device's back.
  TransportRequest post;
  post.method = CoapMethod::kPost;
  post.path = wire::kUpdatePath;
  post.content_format = wire::kUpdateFormat;
  post.payload = ConstByteSpan(saved_upload, size);
  std::byte body[wire::kMaxStatusBodyBytes];
  ASSERT_EQ(rig.server().Handle(d.id, post, body).code, wire::kCoapChanged);
  ASSERT_TRUE(d.Reboot(false).ok());
  ASSERT_TRUE(PollUntil(d, ClientState::kIdle, 10));
  for (int i = 0; i < 20; ++i) rig.PollOnce();
  const FakeDeviceEntry* e = rig.server().Find(d.id);
  EXPECT_EQ(e->accepted, 1u);
  EXPECT_EQ(e->duplicates, 1u);
  EXPECT_EQ(e->conflicts, 0u);
  EXPECT_EQ(d.client.counters().uploads_duplicate, 1u);
  EXPECT_TRUE(d.client.pending_upload().empty());
}

TEST_F(DeviceClientTest, StaleUploadIsDroppedAndTheCurrentRoundComputed) {
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(2);
  ASSERT_TRUE(d.Reboot(true).ok());
  ASSERT_TRUE(PollUntil(d, ClientState::kHalted));
  rig.server().AdvanceRound();  // round 1 closes without this device
  ASSERT_TRUE(d.Reboot(false).ok());
  ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices));
  const FakeDeviceEntry* e = rig.server().Find(d.id);
  EXPECT_EQ(e->stale, 1u);
  EXPECT_EQ(e->accepted, 1u);
  EXPECT_EQ(e->accepted_round, 2u);
  EXPECT_EQ(d.client.counters().uploads_stale, 1u);
  EXPECT_EQ(d.client.counters().steps_computed, 1u);  // round 2 only
}

TEST_F(DeviceClientTest, ExhaustedLocalBudgetIsRefusedAndReported) {
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(0);
  d.config.epsilon_budget = 1e-3;  // far below one step of σ = 2
  ASSERT_TRUE(d.Reboot(false).ok());
  ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices - 1));
  for (int i = 0; i < 50; ++i) rig.PollOnce();
  const FakeDeviceEntry* e = rig.server().Find(d.id);
  EXPECT_EQ(e->accepted, 0u);
  EXPECT_EQ(e->reports, 1u);  // reported once, not on every task refresh
  EXPECT_EQ(e->last_report_code,
            static_cast<uint32_t>(StatusCode::kResourceExhausted));
  EXPECT_EQ(d.client.counters().steps_refused, 1u);
  EXPECT_EQ(d.client.counters().steps_computed, 0u);
  EXPECT_EQ(d.client.last_error(), Status::ResourceExhausted());
  EXPECT_EQ(d.storage.write_count(), 0u);  // nothing persisted
}

// A secure-aggregation round (a task with RoundTask.secure_aggregation)
// for a client not configured for secure rounds (the default): it refuses
// the task and reports it once; nothing is computed, persisted or uploaded
// in the clear.
TEST_F(DeviceClientTest, SecureAggregationRoundIsRefusedNotSentInTheClear) {
  FakeAggregatorConfig job = ClientRig::DefaultConfig();
  job.secure_aggregation = true;
  job.plan.bits = 20;
  job.plan.gamma = 1.0 / 256;
  job.plan.sigma2_num = 9;
  job.plan.sigma2_den = 4;
  job.plan.beta = 0.5;
  job.plan.clip = 1.0;
  job.plan.rotation_seed[0] = 1;
  ClientRig& rig = MakeRig(LinkConfig{}, job);
  RigDevice& d = rig.device(0);
  ASSERT_TRUE(d.Reboot(false).ok());
  for (int i = 0; i < 50; ++i) rig.PollOnce();
  const FakeDeviceEntry* e = rig.server().Find(d.id);
  EXPECT_EQ(e->accepted, 0u);
  EXPECT_EQ(e->reports, 1u);
  EXPECT_EQ(e->last_report_code,
            static_cast<uint32_t>(StatusCode::kUnimplemented));
  EXPECT_EQ(d.client.counters().steps_refused, 1u);
  EXPECT_EQ(d.client.counters().steps_computed, 0u);
  EXPECT_EQ(d.client.last_error(), Status::Unimplemented());
  EXPECT_EQ(d.storage.write_count(), 0u);
  // A plan the device cannot run is refused at decode instead.
  job.plan.bits = 0;
  TearDown();
  ClientRig& bad = MakeRig(LinkConfig{}, job);
  RigDevice& b = bad.device(0);
  ASSERT_TRUE(b.Reboot(false).ok());
  for (int i = 0; i < 50; ++i) bad.PollOnce();
  EXPECT_EQ(bad.server().Find(b.id)->accepted, 0u);
  EXPECT_GE(b.client.counters().tasks_invalid, 1u);
  EXPECT_EQ(b.client.counters().steps_computed, 0u);
}

// Issue 13 defect 7: a budget across jobs. The record keeps the ledger of
// the device's earlier jobs: with a per-job budget that allows three rounds
// and a lifetime budget that allows four, device 0 takes part in three
// rounds of job 7 and in one of job 8 (the per-job budget alone would allow
// three), and a reboot between the jobs loses nothing.
TEST_F(DeviceClientTest, LifetimeBudgetSpansJobs) {
  // One round of the rig's task: Δ = 4λC = 1, noise λσ = 1.
  DevicePrivacyLedger ledger;
  Real epsilon[6] = {};
  for (int k = 1; k <= 5; ++k) {
    ASSERT_TRUE(ledger.Charge(1, 1).ok());
    epsilon[k] = *ledger.Epsilon(1e-5);
  }
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(0);
  d.config.epsilon_budget = (epsilon[3] + epsilon[4]) / 2;
  d.config.lifetime_epsilon_budget = (epsilon[4] + epsilon[5]) / 2;
  ASSERT_TRUE(d.Reboot(false).ok());
  for (int round = 1; round <= 4; ++round) {
    ASSERT_TRUE(
        rig.RunUntilRoundComplete(round <= 3 ? kRigDevices : kRigDevices - 1))
        << round;
    rig.server().AdvanceRound();
  }
  EXPECT_EQ(rig.server().Find(d.id)->accepted, 3u);
  EXPECT_EQ(d.client.counters().steps_refused, 1u);  // job 7 round 4

  ASSERT_TRUE(d.Reboot(false).ok());
  rig.server().StartNextJob();
  for (int round = 1; round <= 3; ++round) {
    ASSERT_TRUE(
        rig.RunUntilRoundComplete(round == 1 ? kRigDevices : kRigDevices - 1))
        << round;
    rig.server().AdvanceRound();
  }
  EXPECT_EQ(rig.server().Find(d.id)->accepted, 4u);
  EXPECT_EQ(d.client.counters().steps_computed, 1u);  // since the reboot
  EXPECT_EQ(d.client.counters().steps_refused, 2u);   // job 8 rounds 2, 3
  EXPECT_EQ(d.client.last_error(), Status::ResourceExhausted());
  // The stored record: job 8's state, job 7's three rounds as earlier jobs.
  static std::byte record[DeviceClient::RecordBytes(kRigDim)];
  const StatusWithSize read = d.storage.Read("client", record);
  ASSERT_TRUE(read.ok());
  ClientRecordView view;
  ASSERT_TRUE(ParseClientRecord(ConstByteSpan(record, read.size()), view).ok());
  EXPECT_EQ(view.job_id, 8u);
  EXPECT_EQ(view.earlier_jobs.participations(), 3u);
}

TEST_F(DeviceClientTest, FailedPersistIsRetriedNotRecomputed) {
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(0);
  d.storage.FailWrites(2, Status::Unavailable());
  ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices));
  EXPECT_EQ(d.client.counters().storage_errors, 2u);
  EXPECT_EQ(d.client.counters().steps_computed, 1u);
  EXPECT_EQ(rig.server().Find(d.id)->accepted, 1u);
}

TEST_F(DeviceClientTest, PollingWithoutObserveWorksToo) {
  ClientRig& rig = MakeRig(LinkConfig{});
  for (size_t i = 0; i < kRigDevices; ++i) {
    rig.device(i).config.use_observe = false;
    ASSERT_TRUE(rig.device(i).Reboot(false).ok());
  }
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices));
    rig.server().AdvanceRound();
  }
  EXPECT_EQ(rig.server().totals().accepted, 2 * kRigDevices);
}

// A transport that only observes: requests fail, Poll does nothing.
class ObserveOnlyTransport : public Transport {
 public:
  Status StartRequest(const TransportRequest&, ByteSpan) override {
    return Status::Unavailable();
  }
  bool TakeResult(TransportResult&) override { return false; }
  void Cancel() override {}
  StatusWithSize Poll(uint32_t) override { return StatusWithSize(0); }
};

// A transport whose Observe registration stays unanswered (its response is
// lost and the confirmable request is being retransmitted) until the test
// fails it.
class UnansweredObserveTransport final : public ObserveOnlyTransport {
 public:
  Status StartObserve(const char*, ByteSpan) override {
    ++registrations;
    return Status::Ok();
  }
  bool TakeNotification(TransportResult& result) override {
    if (!fail_registration) return false;
    fail_registration = false;
    result = TransportResult{};
    result.status = Status::DeadlineExceeded();
    return true;
  }
  void StopObserve() override {}

  int registrations = 0;
  bool fail_registration = false;
};

TEST_F(DeviceClientTest, UnansweredRegistrationIsNotRepeatedEveryRefresh) {
  // Re-registering while the last registration is still retransmitted
  // queues a new one behind it (libcoap sends one confirmable message at a
  // time); under 30% loss the queue of stale registrations grew faster than
  // it drained and a device stayed IDLE for minutes.
  UnansweredObserveTransport transport;
  RigDevice& d = StartOn(transport);
  const DeviceClientConfig& config = d.config;
  const uint64_t patience =
      DeviceClient::kUnansweredRegistrationRefreshes * uint64_t{kRefreshMs};
  uint64_t now = 0;
  for (; now < patience; now += 100) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  EXPECT_EQ(transport.registrations, 1);
  // Due at the patience plus this device's spread (at most 25%).
  EXPECT_GE(d.client.IdleMs(now - 100), 100u);
  EXPECT_LE(d.client.IdleMs(now - 100), 100u + patience / 4);
  // The transport gives up on it: the client registers again after a
  // backoff, so it recovers within a bounded time.
  transport.fail_registration = true;
  const uint64_t failed = now;
  for (; now <= failed + config.retry_max_ms + config.retry_max_ms / 2;
       now += 100) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  EXPECT_EQ(transport.registrations, 2);
  // A transport that never reports: registered again after the patience.
  const uint64_t registered = now;
  for (; now <= registered + patience * 5 / 4; now += 100) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  EXPECT_EQ(transport.registrations, 3);
  EXPECT_EQ(d.client.counters().transport_errors, 1u);
}

// A transport to an aggregator that can restart: the new process has
// forgotten the session and drops its records without an answer, so only a
// registration on a new session (after Reconnect) is answered.
class RestartingServerTransport final : public ObserveOnlyTransport {
 public:
  Status StartObserve(const char*, ByteSpan) override {
    ++registrations;
    registration_pending = session_known;
    return Status::Ok();
  }
  bool TakeNotification(TransportResult& result) override {
    if (!registration_pending) return false;
    registration_pending = false;
    ++answered;
    result = TransportResult{};
    result.code = wire::kCoapContent;  // an empty task: refused at decode
    return true;
  }
  void StopObserve() override { registration_pending = false; }
  void Reconnect() override {
    ++reconnects;
    session_known = true;
    registration_pending = false;
  }

  bool session_known = true;
  bool registration_pending = false;
  int registrations = 0;
  int answered = 0;
  int reconnects = 0;
};

TEST_F(DeviceClientTest, SilentObservationRegistersAgainOnANewSession) {
  // The aggregator was killed and restarted while the device observed: no
  // notification comes. Registering again on the old session would be
  // dropped by the new process and fail only after every retransmission
  // (93 s), while rounds run without the device (daemon_crash_test).
  RestartingServerTransport transport;
  RigDevice& d = StartOn(transport);
  uint64_t now = 0;
  for (; now < 500; now += 100) ASSERT_TRUE(d.client.Poll(now).ok());
  ASSERT_EQ(transport.answered, 1);
  EXPECT_EQ(transport.reconnects, 0);
  transport.session_known = false;  // the aggregator restarts
  // One refresh interval (plus the device's spread) of silence later the
  // device is registered with the new process.
  for (; now <= 400 + kRefreshMs * 5 / 4 + 100; now += 100) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  EXPECT_EQ(transport.registrations, 2);
  EXPECT_EQ(transport.reconnects, 1);
  EXPECT_EQ(transport.answered, 2);
}

// A gateway that answers every registration but pushes a notification only
// when the test says so: an idle job, a busy gateway that notifies late, or
// rounds at the test's pace.
class QuietServerTransport final : public ObserveOnlyTransport {
 public:
  explicit QuietServerTransport(const uint64_t* now) : now_(now) {}
  Status StartObserve(const char*, ByteSpan buffer) override {
    registration_times[registrations < 32 ? registrations : 31] = *now_;
    ++registrations;
    answer_due = true;
    buffer_ = buffer;
    return Status::Ok();
  }
  bool TakeNotification(TransportResult& result) override {
    // The registration's answer first, then a pushed notification.
    if (answer_due) {
      answer_due = false;
    } else if (push) {
      push = false;
    } else {
      return false;
    }
    result = TransportResult{};
    result.code = wire::kCoapContent;
    // By default an empty task (refused at decode), else `task`.
    if (task_size > 0 && task_size <= buffer_.size()) {
      std::memcpy(buffer_.data(), task, task_size);
      result.payload_size = task_size;
    }
    return true;
  }
  void StopObserve() override { answer_due = false; }

  bool answer_due = false;
  bool push = false;
  int registrations = 0;
  uint64_t registration_times[32] = {};
  std::byte task[64] = {};  // no heap: the test runs on the MCU too
  size_t task_size = 0;

 private:
  const uint64_t* now_;
  ByteSpan buffer_;
};

TEST_F(DeviceClientTest, RefreshesWithoutANotificationDoubleTheWait) {
  // 10,000 devices re-registering every 2 s on new sessions (5,000
  // handshakes/s) overloaded the gateway, which then notified late, which
  // made every device refresh again: it never settled (docs/results.md).
  // Each refresh that no notification follows doubles the next wait, up to
  // task_refresh_max_ms.
  uint64_t now = 0;
  QuietServerTransport transport(&now);
  RigDevice& d = StartOn(transport, 8 * kRefreshMs);
  for (; now < 60'000 && transport.registrations < 7; now += 10) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  ASSERT_EQ(transport.registrations, 7);
  // Waits of 1, 2, 4, 8, 8, 8 s, each plus the same spread of <= 25%.
  const uint64_t expected[] = {1000, 2000, 4000, 8000, 8000, 8000};
  for (int i = 0; i < 6; ++i) {
    const uint64_t wait =
        transport.registration_times[i + 1] - transport.registration_times[i];
    EXPECT_GE(wait, expected[i]) << i;
    EXPECT_LE(wait, expected[i] * 5 / 4 + 10) << i;
  }
}

TEST_F(DeviceClientTest, ADeviceThatHearsEveryRoundDoesNotRefreshBetweenThem) {
  // Rounds every 3 s against a 1 s task_refresh_ms: a refresh 1 s after
  // every notification would cost the gateway a handshake per device per
  // round. The wait is twice the gap between notifications instead.
  uint64_t now = 0;
  QuietServerTransport transport(&now);
  RigDevice& d = StartOn(transport);
  ASSERT_TRUE(d.client.Poll(now).ok());
  ASSERT_EQ(transport.registrations, 1);
  // The first notification comes 0.5 s after the registration, the rest
  // every 3 s: one refresh at most before the gap is known.
  uint64_t next_push = 500;
  for (; now < 30'000; now += 10) {
    if (now == next_push) {
      transport.push = true;
      next_push += 3000;
    }
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  EXPECT_LE(transport.registrations, 2);
  // The rounds stop (the gateway restarted): the device registers again
  // after twice the gap (6 s, plus its spread).
  const int before = transport.registrations;
  const uint64_t last_push = next_push - 3000;
  for (; now < last_push + 8000 && transport.registrations == before;
       now += 10) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  ASSERT_EQ(transport.registrations, before + 1);
  EXPECT_GE(transport.registration_times[before] - last_push, 6000u);
  EXPECT_LE(transport.registration_times[before] - last_push, 7500u + 10);
}

TEST_F(DeviceClientTest, ADeviceDoesNotRefreshWithinTwoHeartbeats) {
  // The gateway says it notifies every 4 s (RoundTask.heartbeat_ms) and the
  // device's task_refresh_ms is 1 s. Its first notification comes 0.1 s
  // after the registration's answer: from that gap alone the device would
  // refresh 1 s later, and a device that re-registers just before every
  // heartbeat would do so again and again (a 5 s refresh against a 10 s
  // heartbeat: 33-45 handshakes/s per 2,000 devices, docs/results.md).
  uint64_t now = 0;
  QuietServerTransport transport(&now);
  edgeadmm_wire_RoundTask idle = edgeadmm_wire_RoundTask_init_zero;
  idle.version = wire::kProtocolVersion;
  idle.job_id = 7;
  idle.round_id = 1;
  idle.role = edgeadmm_wire_Role_ROLE_IDLE;
  idle.heartbeat_ms = 4000;
  const StatusWithSize encoded =
      wire::EncodeRoundTask(idle, {}, {}, ByteSpan(transport.task));
  ASSERT_TRUE(encoded.ok());
  transport.task_size = encoded.size();
  RigDevice& d = StartOn(transport);
  uint64_t next_push = 100;
  for (; now < 30'000; now += 10) {
    if (now == next_push) {
      transport.push = true;
      next_push += 4000;
    }
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  EXPECT_EQ(transport.registrations, 1);
  EXPECT_EQ(d.client.counters().tasks_invalid, 0u);
  // The heartbeats stop (the gateway is gone): the device registers again
  // after twice the heartbeat (8 s, plus its spread).
  const uint64_t last_push = next_push - 4000;
  for (; now < last_push + 11'000 && transport.registrations == 1; now += 10) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  ASSERT_EQ(transport.registrations, 2);
  EXPECT_GE(transport.registration_times[1] - last_push, 8000u);
  EXPECT_LE(transport.registration_times[1] - last_push, 10'000u + 10);
}

TEST_F(DeviceClientTest, DevicesSpreadTheirRefreshes) {
  // Devices registered at the same instant (one notification reaches the
  // whole fleet) refresh at different times within +25%.
  ClientRig& rig = MakeRig(LinkConfig{});
  uint64_t now = 0;
  static_assert(kRigDevices == 3, "one transport per rig device");
  QuietServerTransport a(&now), b(&now), c(&now);
  QuietServerTransport* transports[] = {&a, &b, &c};
  constexpr size_t kDevices = kRigDevices;
  for (size_t i = 0; i < kDevices; ++i) {
    DeviceClientConfig config = rig.device(i).config;
    config.transport = transports[i];
    config.task_refresh_ms = 4000;
    ASSERT_TRUE(rig.device(i).client.Init(config, rig.device(i).memory()).ok());
  }
  for (; now < 6000; now += 10) {
    for (size_t i = 0; i < kDevices; ++i) {
      ASSERT_TRUE(rig.device(i).client.Poll(now).ok());
    }
  }
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = 0; i < kDevices; ++i) {
    ASSERT_EQ(transports[i]->registrations, 2) << i;
    const uint64_t at = transports[i]->registration_times[1];
    EXPECT_GE(at, 4000u);
    EXPECT_LE(at, 5000u + 10);
    first = at < first ? at : first;
    last = at > last ? at : last;
  }
  EXPECT_GE(last - first, 100u);  // not all at once
}

// The aggregator ends an observation it can no longer serve (the device is
// outside the running job, or its session was superseded) with a 2.03
// notification without a task, not with an error, which libcoap 4.3.1's
// server cannot send safely (docs/security.md). The device must take it as
// the end of its observation and register again, which gets the refusal as
// a response.
class NoTaskNotificationTransport final : public ObserveOnlyTransport {
 public:
  Status StartObserve(const char*, ByteSpan) override {
    ++registrations;
    registration_pending = true;
    return Status::Ok();
  }
  bool TakeNotification(TransportResult& result) override {
    if (!registration_pending && !end_observation) return false;
    result = TransportResult{};
    result.code = registration_pending ? wire::kCoapContent : wire::kCoapValid;
    registration_pending = false;
    end_observation = false;
    return true;
  }
  void StopObserve() override { ++stops; }

  bool registration_pending = false;
  bool end_observation = false;
  int registrations = 0;
  int stops = 0;
};

TEST_F(DeviceClientTest, NotificationWithoutATaskRegistersAgain) {
  NoTaskNotificationTransport transport;
  RigDevice& d = MakeRig(LinkConfig{}).device(0);
  DeviceClientConfig config = d.config;
  config.transport = &transport;
  // No refresh within the test: only the 2.03 can make it register again.
  config.task_refresh_ms = 3'600'000;
  ASSERT_TRUE(d.client.Init(config, d.memory()).ok());
  uint64_t now = 0;
  for (; now < 500; now += 100) ASSERT_TRUE(d.client.Poll(now).ok());
  ASSERT_EQ(transport.registrations, 1);
  transport.end_observation = true;
  const uint64_t ended = now;
  for (; now <= ended + config.retry_max_ms + config.retry_max_ms / 2;
       now += 100) {
    ASSERT_TRUE(d.client.Poll(now).ok());
  }
  EXPECT_GE(transport.stops, 1);
  EXPECT_EQ(transport.registrations, 2);
}

TEST_F(DeviceClientTest, DoneTaskStopsTheClient) {
  ClientRig& rig = MakeRig(LinkConfig{});
  ASSERT_TRUE(rig.RunUntilRoundComplete(kRigDevices));
  rig.server().Finish();
  for (int i = 0; i < 20; ++i) rig.PollOnce();
  for (size_t i = 0; i < kRigDevices; ++i) {
    EXPECT_EQ(rig.device(i).client.state(), ClientState::kDone);
  }
}

TEST_F(DeviceClientTest, CorruptRecordHaltsWithDataLoss) {
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(0);
  const std::byte junk[8] = {};
  ASSERT_TRUE(d.storage.Write("client", junk).ok());
  ASSERT_TRUE(d.Reboot(false).ok());
  EXPECT_EQ(d.client.Poll(0), Status::DataLoss());
  EXPECT_EQ(d.client.state(), ClientState::kHalted);
  EXPECT_EQ(d.client.counters().steps_computed, 0u);
}

TEST_F(DeviceClientTest, InitRefusesBadConfigs) {
  ClientRig& rig = MakeRig(LinkConfig{});
  RigDevice& d = rig.device(0);
  DeviceClientConfig bad = d.config;
  bad.device_id = "has space";
  EXPECT_EQ(d.client.Init(bad, d.memory()), Status::InvalidArgument());
  bad = d.config;
  bad.transport = nullptr;
  EXPECT_EQ(d.client.Init(bad, d.memory()), Status::InvalidArgument());
  bad = d.config;
  bad.delta = 1.0;
  EXPECT_EQ(d.client.Init(bad, d.memory()), Status::InvalidArgument());
  EXPECT_EQ(d.client.Init(d.config, d.memory().first(d.memory().size() / 2)),
            Status::ResourceExhausted());
  bad = d.config;
  bad.compute_scratch = bad.compute_scratch.first(16);
  EXPECT_EQ(d.client.Init(bad, d.memory()), Status::ResourceExhausted());
  // Secure rounds: k with a table without the hooks is refused; with the
  // hooks, the memory must hold SecAggMemoryBytes more.
  bad = d.config;
  bad.secagg_max_neighbours = 8;
  // AllClientAlgorithms has no secure-round hooks (nothing of SecAgg+ is
  // linked through it).
  EXPECT_EQ(AllClientAlgorithms().secure_rounds, nullptr);
  EXPECT_EQ(d.client.Init(bad, d.memory()), Status::InvalidArgument());
  bad.secagg_poll_ms = 0;  // no resend interval
  EXPECT_EQ(
      d.client.Init(bad, d.memory(), AllClientAlgorithmsWithSecureRounds()),
      Status::InvalidArgument());
  bad.secagg_poll_ms = DeviceClient::kSecureRoundPollMs;
  EXPECT_EQ(
      d.client.Init(bad, d.memory(), AllClientAlgorithmsWithSecureRounds()),
      Status::ResourceExhausted());
  // More neighbours than a round can have.
  bad.secagg_max_neighbours = kSecAggMaxNeighbours + 1;
  EXPECT_EQ(
      d.client.Init(bad, d.memory(), AllClientAlgorithmsWithSecureRounds()),
      Status::InvalidArgument());
  EXPECT_EQ(d.client.Poll(0), Status::FailedPrecondition());
  EXPECT_TRUE(d.client.Init(d.config, d.memory()).ok());
}

}  // namespace
}  // namespace edgeadmm
