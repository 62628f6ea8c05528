// StaticDeviceClient (static_device_client.h): the arena's size is the SDK's
// own formulas for the shape, Init refuses data beyond the shape before it
// carves anything, and a client in the arena at the shape's largest data
// trains a round against the in-process FakeAggregator (portable: static
// memory, also runs on the MCU).
#include "edgeadmm/static_device_client.h"

#include <cstdint>
#include <initializer_list>

#include "edgeadmm/fake/fake_aggregator.h"
#include "edgeadmm/fake/loopback_transport.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kDim = 8;
constexpr size_t kRecords = 16;
using ProxShape =
    DeviceShape<kDim, kRecords, AlgorithmBit(AlgorithmKind::kProxAdmm),
                LossBit(LossKind::kLogistic)>;
using AllShape = DeviceShape<kDim, kRecords>;
using ProxClient = StaticDeviceClient<ProxShape>;
using AllClient = StaticDeviceClient<AllShape>;

// The arena is the sum of the SDK's sizing functions, nothing else.
static_assert(ProxClient::kTrainerWorkspaceBytes ==
              LocalStepWorkspaceBytes(AlgorithmKind::kProxAdmm,
                                      LossKind::kLogistic, kRecords, kDim));
static_assert(AllClient::kTrainerWorkspaceBytes ==
              DeviceClient::TrainerWorkspaceBytes(kRecords, kDim));
static_assert(
    ProxClient::kArenaBytes ==
    Workspace::Bytes<std::byte>(ProxClient::kTrainerWorkspaceBytes) +
        Workspace::Bytes<std::byte>(DeviceClient::ComputeScratchBytes(kDim)) +
        Workspace::Bytes<std::byte>(DeviceClient::MemoryBytes(kDim)) +
        2 * Workspace::Bytes<std::byte>(1024 + 64));
static_assert(sizeof(ProxClient) >= ProxClient::kArenaBytes);
static_assert(ProxClient::coap_block_szx() == 6);
static_assert(
    StaticDeviceClient<DeviceShape<kDim, kRecords, ClientAlgorithmBits(),
                                   kClientLosses, 256>>::coap_block_szx() == 4);

// Secure rounds (k = 2 neighbours): the arena adds the SDK's
// SecureRoundMemoryBytes and the table the secure-round hooks; a shape
// without them has neither.
constexpr size_t kSecureK = 2;
using SecureClient = StaticDeviceClient<WithSecureRounds<ProxShape, kSecureK>>;
static_assert(SecureClient::kArenaBytes ==
              ProxClient::kArenaBytes + SecureRoundMemoryBytes(kDim, kSecureK));
static_assert(SecureClient::kAlgorithmTable.secure_rounds ==
              &DeviceClient::kSecureRoundHooks);
static_assert(ProxClient::kAlgorithmTable.secure_rounds == nullptr);
static_assert(AllClient::kAlgorithmTable.secure_rounds == nullptr);

using WiderClient = StaticDeviceClient<DeviceShape<kDim + 1, kRecords>>;
using LongerClient = StaticDeviceClient<DeviceShape<kDim, 2 * kRecords>>;

TEST(StaticDeviceClientTest, ArenaGrowsWithTheShape) {
  EXPECT_LT(ProxClient::kArenaBytes, WiderClient::kArenaBytes);
  EXPECT_LT(ProxClient::kArenaBytes, LongerClient::kArenaBytes);
  EXPECT_LE(ProxClient::kArenaBytes, AllClient::kArenaBytes);
}

TEST(StaticDeviceClientTest, SecureRoundMemoryIsDeviceClients) {
  EXPECT_EQ(SecureClient::kSecureRoundBytes,
            DeviceClient::SecAggMemoryBytes(kDim, kSecureK));
  EXPECT_GT(SecureClient::kSecureRoundBytes, 0u);
  EXPECT_EQ(ProxClient::kSecureRoundBytes, 0u);
  // More neighbours: more memory (the round's number of devices plays no
  // part: phase 3's answer lists at most k + 1 survivors).
  EXPECT_LT(SecureRoundMemoryBytes(kDim, kSecureK),
            SecureRoundMemoryBytes(kDim, kSecureK + 1));
}

// The secure round's one slice (internal::SecureRoundLayoutOf): every part
// starts on the workspace alignment, after the one before it, with room for
// its need and less than one alignment more; the blob fits the work and
// response regions together.
TEST(StaticDeviceClientTest, SecureRoundLayoutPartsAreAlignedAndDisjoint) {
  const size_t m = DdgPaddedDimension(kDim);
  for (size_t k : {size_t{1}, size_t{2}, size_t{8}, size_t{32}}) {
    const internal::SecureRoundLayout l =
        internal::SecureRoundLayoutOf(kDim, k);
    const size_t starts[] = {0,       l.neighbours, l.sealed, l.scratch,
                             l.work,  l.response,   l.real,   l.integers,
                             l.signs, l.words,      l.record, l.total};
    const size_t needs[] = {internal::kClientSecAggObjectBytes,
                            k * sizeof(SecAggPeerKeys),
                            k * sizeof(SecAggSealed),
                            k * sizeof(SecAggPeerKey),
                            internal::SecAggWorkRegionBytes(k, m),
                            internal::SecAggResponseBytes(k),
                            m * sizeof(Real),
                            m * sizeof(int64_t),
                            DdgSignWords(m) * sizeof(uint32_t),
                            m * sizeof(uint32_t),
                            SecAggInputRecordBytes(m)};
    for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); ++i) {
      EXPECT_EQ(starts[i] % Workspace::kAlignment, 0u) << i;
      ASSERT_GT(starts[i + 1], starts[i]) << i;
      EXPECT_GE(starts[i + 1] - starts[i], needs[i]) << i;
      EXPECT_LT(starts[i + 1] - starts[i], needs[i] + Workspace::kAlignment)
          << i;
    }
    EXPECT_EQ(SecureRoundMemoryBytes(kDim, k),
              Workspace::Bytes<std::byte>(l.total));
    // The blob spans the work and response regions, which are adjacent.
    EXPECT_EQ(l.blob_end, l.response + internal::SecAggResponseBytes(k));
    EXPECT_GE(l.blob_end - l.work, SecAggSessionBlobBytes(k, m)) << "k " << k;
  }
}

TEST(StaticDeviceClientTest, JobShapeChecks) {
  const DeviceShapeLimits& s = ProxShape::kLimits;
  EXPECT_EQ(
      CheckJobShape(s, AlgorithmKind::kProxAdmm, LossKind::kLogistic, kDim),
      Status::Ok());
  EXPECT_EQ(
      CheckJobShape(s, AlgorithmKind::kProxAdmm, LossKind::kLogistic, kDim + 1),
      Status::ResourceExhausted());
  EXPECT_EQ(CheckJobShape(s, AlgorithmKind::kDpSgd, LossKind::kLogistic, kDim),
            Status::Unimplemented());
  EXPECT_EQ(
      CheckJobShape(s, AlgorithmKind::kProxAdmm, LossKind::kSquared, kDim),
      Status::Unimplemented());
  EXPECT_EQ(CheckJobShape(AllShape::kLimits, AlgorithmKind::kDpSgd,
                          LossKind::kSquared, kDim),
            Status::Ok());
}

FakeAggregatorConfig AggregatorConfig(bool squared_loss) {
  FakeAggregatorConfig c;
  c.job_id = 9;
  c.clip = 0.5;
  c.sigma = 2.0;
  c.squared_loss = squared_loss;
  return c;
}

// A FakeAggregator with its memory and the device's storage memory
// (static: the MCU's stack is small).
struct FakeJob {
  FakeDeviceEntry table[4];
  Real model[kDim];
  Real u_sum[kDim];
  Real decode[kDim];
  alignas(16) std::byte
      storage_bytes[MemoryStorage::kMaxKeys * DeviceClient::RecordBytes(kDim)];
  FakeAggregator server;
  explicit FakeJob(bool squared_loss)
      : server(AggregatorConfig(squared_loss), Span<FakeDeviceEntry>(table, 4),
               Span<Real>(model, kDim), Span<Real>(u_sum, kDim),
               Span<Real>(decode, kDim)) {}
};
FakeJob logistic_job(false);
FakeJob& ports = logistic_job;
FakeAggregator& server = logistic_job.server;
ProxClient device;
testing::SyntheticData<kRecords, kDim> data(3);
testing::SyntheticData<kRecords + 1, kDim> too_many(4);
testing::SyntheticData<kRecords, kDim + 1> too_wide(5);

DeviceClientConfig Config(Transport& transport, Storage& storage,
                          EntropySource& entropy, const DatasetView& view) {
  DeviceClientConfig c;
  c.device_id = "static-0";
  c.transport = &transport;
  c.storage = &storage;
  c.entropy = &entropy;
  c.data = view;
  c.epsilon_budget = 50.0;
  c.task_refresh_ms = 5000;
  c.retry_min_ms = 200;
  c.retry_max_ms = 3200;
  return c;
}

TEST(StaticDeviceClientTest, InitRefusesDataBeyondTheShape) {
  static TestEntropy entropy(11);
  static MemoryStorage storage(
      ByteSpan(ports.storage_bytes, sizeof(ports.storage_bytes)));
  static LoopbackTransport transport(server, "static-0", LinkConfig{});
  // One record or one coordinate too many: refused before any carving.
  EXPECT_EQ(device.Init(Config(transport, storage, entropy, too_many.View())),
            Status::ResourceExhausted());
  EXPECT_EQ(device.Init(Config(transport, storage, entropy, too_wide.View())),
            Status::ResourceExhausted());
  // The arena's slices are the StaticDeviceClient's to set.
  DeviceClientConfig c = Config(transport, storage, entropy, data.View());
  static LocalTrainer other;
  c.trainer = &other;
  EXPECT_EQ(device.Init(c), Status::InvalidArgument());
  // A bad config still reaches DeviceClient::Init's own checks.
  c = Config(transport, storage, entropy, data.View());
  c.entropy = nullptr;
  EXPECT_EQ(device.Init(c), Status::InvalidArgument());
  // Secure-round limits are the shape's: none for this one.
  c = Config(transport, storage, entropy, data.View());
  c.secagg_max_neighbours = kSecureK;
  EXPECT_EQ(device.Init(c), Status::InvalidArgument());
  EXPECT_EQ(device.Init(Config(transport, storage, entropy, data.View())),
            Status::Ok());
}

TEST(StaticDeviceClientTest, SecureShapeInitsWithItsOwnLimits) {
  static TestEntropy entropy(13);
  static MemoryStorage storage(
      ByteSpan(ports.storage_bytes, sizeof(ports.storage_bytes)));
  static LoopbackTransport transport(server, "static-0", LinkConfig{});
  static SecureClient secure;
  // The whole arena is carved: the secure round's part included.
  EXPECT_EQ(secure.Init(Config(transport, storage, entropy, data.View())),
            Status::Ok());
  DeviceClientConfig c = Config(transport, storage, entropy, data.View());
  c.secagg_max_neighbours = kSecureK;
  EXPECT_EQ(secure.Init(c), Status::Ok());
  c.secagg_max_neighbours = kSecureK + 1;
  EXPECT_EQ(secure.Init(c), Status::InvalidArgument());
}

TEST(StaticDeviceClientTest, TrainsARoundAtTheLargestShape) {
  static TestEntropy entropy(12);
  static MemoryStorage storage(
      ByteSpan(ports.storage_bytes, sizeof(ports.storage_bytes)));
  static LoopbackTransport transport(server, "static-0", LinkConfig{});
  ASSERT_EQ(server.AddDevice("static-0"), Status::Ok());
  ASSERT_EQ(device.Init(Config(transport, storage, entropy, data.View())),
            Status::Ok());
  // The datagram buffers lie in the arena, after everything Init carved.
  const ConstByteSpan arena = device.arena();
  EXPECT_EQ(device.coap_rx_buffer().data() + device.coap_rx_buffer().size(),
            arena.data() + arena.size() - 16);
  EXPECT_EQ(device.coap_tx_buffer().size(), ProxClient::kDatagramBytes);
  uint64_t now = 0;
  const FakeDeviceEntry* entry = server.Find("static-0");
  ASSERT_TRUE(entry != nullptr);
  for (int i = 0; i < 2000 && entry->accepted == 0; ++i) {
    device.client().Poll(now).IgnoreError();
    transport.Poll(0).status().IgnoreError();
    now += 100;
  }
  EXPECT_EQ(entry->accepted, 1u);
  EXPECT_EQ(device.client().counters().steps_computed, 1u);
  EXPECT_EQ(device.client().counters().steps_refused, 0u);
}

// A job of a loss outside the shape (squared; the shape has logistic only):
// the step is refused as UNIMPLEMENTED and reported, nothing is uploaded.
FakeJob squared(true);
FakeAggregator& squared_server = squared.server;

TEST(StaticDeviceClientTest, RefusesAJobOutsideTheShape) {
  static TestEntropy entropy(13);
  static MemoryStorage storage(
      ByteSpan(squared.storage_bytes, sizeof(squared.storage_bytes)));
  static LoopbackTransport transport(squared_server, "static-0", LinkConfig{});
  ASSERT_EQ(squared_server.AddDevice("static-0"), Status::Ok());
  ASSERT_EQ(device.Init(Config(transport, storage, entropy, data.View())),
            Status::Ok());
  const FakeDeviceEntry* entry = squared_server.Find("static-0");
  ASSERT_TRUE(entry != nullptr);
  uint64_t now = 0;
  for (int i = 0; i < 2000 && entry->reports == 0; ++i) {
    device.client().Poll(now).IgnoreError();
    transport.Poll(0).status().IgnoreError();
    now += 100;
  }
  EXPECT_EQ(entry->reports, 1u);
  EXPECT_EQ(entry->last_report_code,
            static_cast<uint32_t>(StatusCode::kUnimplemented));
  EXPECT_EQ(entry->accepted, 0u);
  EXPECT_EQ(device.client().counters().steps_refused, 1u);
  EXPECT_EQ(device.client().counters().steps_computed, 0u);
}

}  // namespace
}  // namespace edgeadmm
