// Test rig for DeviceClient tests: a FakeAggregator and devices talking to it
// over LoopbackTransports, on static memory (portable: no heap, small stack).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "edgeadmm/device_client.h"
#include "edgeadmm/fake/fake_aggregator.h"
#include "edgeadmm/fake/loopback_transport.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/local_steps.h"
#include "synthetic_data.h"

namespace edgeadmm::testing {

inline constexpr size_t kRigSamples = 16;
inline constexpr size_t kRigDim = 8;
inline constexpr size_t kRigDevices = 3;
inline constexpr size_t kRigTrainerBytes = LocalStepWorkspaceBytes(
    AlgorithmKind::kProxAdmm, LossKind::kLogistic, kRigSamples, kRigDim);
inline constexpr size_t kRigScratchBytes =
    DeviceClient::ComputeScratchBytes(kRigDim);
inline constexpr size_t kRigMemoryBytes = DeviceClient::MemoryBytes(kRigDim);
inline constexpr size_t kRigStorageBytes =
    MemoryStorage::kMaxKeys * DeviceClient::RecordBytes(kRigDim);

// Static memory of the rig (shared trainer and scratch, like the fleet).
struct RigMemory {
  alignas(16) std::byte trainer[kRigTrainerBytes];
  alignas(16) std::byte scratch[kRigScratchBytes];
  alignas(16) std::byte client[kRigDevices][kRigMemoryBytes];
  alignas(16) std::byte storage[kRigDevices][kRigStorageBytes];
  FakeDeviceEntry table[4 * kRigDevices];
  Real model[kRigDim];
  Real u_sum[kRigDim];
  Real decode[kRigDim];
};
RigMemory& TheRigMemory();

// One virtual device: data shard, entropy, storage, link and client.
struct RigDevice {
  char id[16];
  SyntheticData<kRigSamples, kRigDim> data;
  TestEntropy entropy;
  MemoryStorage storage;
  LoopbackTransport transport;
  DeviceClientConfig config;
  DeviceClient client;

  RigDevice(size_t index, FakeAggregator& server, LocalTrainer& trainer,
            const LinkConfig& link);
  // Restarts the client from its storage (a reboot): link state is dropped,
  // the DRBG gets a different entropy stream.
  Status Reboot(bool halt_after_persist);
  ByteSpan memory();
  size_t index;
};

// The aggregator and kRigDevices devices, polled in one loop with 100 ms of
// virtual time per iteration.
class ClientRig {
 public:
  explicit ClientRig(const LinkConfig& link,
                     const FakeAggregatorConfig& config = DefaultConfig());
  static FakeAggregatorConfig DefaultConfig();

  // Polls every device (client then transport) once and advances time.
  void PollOnce();
  // Polls until every in-cohort device has an accepted upload for the open
  // round (true) or `max_iterations` passed (false).
  bool RunUntilRoundComplete(size_t devices, size_t max_iterations = 20000);

  // Polls until no device has an upload in flight or pending (true).
  bool Drain(size_t max_iterations = 20000);

  FakeAggregator& server() { return server_; }
  RigDevice& device(size_t i) { return *devices_[i]; }
  uint64_t now_ms() const { return now_ms_; }

 private:
  FakeAggregator server_;
  LocalTrainer trainer_;
  RigDevice device0_;
  RigDevice device1_;
  RigDevice device2_;
  RigDevice* devices_[kRigDevices];
  uint64_t now_ms_ = 0;
};

}  // namespace edgeadmm::testing
