#include "client_test_rig.h"

namespace edgeadmm::testing {
namespace {

LinkConfig SeededLink(LinkConfig link, size_t index) {
  link.seed += 7919 * (index + 1);  // an independent loss stream per device
  return link;
}

}  // namespace

RigMemory& TheRigMemory() {
  static RigMemory memory;
  return memory;
}

RigDevice::RigDevice(size_t i, FakeAggregator& server, LocalTrainer& trainer,
                     const LinkConfig& link)
    : id{},
      data(100 + i),
      entropy(1000 + i),
      storage(ByteSpan(TheRigMemory().storage[i], kRigStorageBytes)),
      transport(server, id, SeededLink(link, i)),
      index(i) {
  std::snprintf(id, sizeof(id), "dev-%u", static_cast<unsigned>(i));
  RigMemory& m = TheRigMemory();
  config.device_id = id;
  config.transport = &transport;
  config.storage = &storage;
  config.entropy = &entropy;
  config.data = data.View();
  config.trainer = &trainer;
  config.trainer_workspace = ByteSpan(m.trainer, kRigTrainerBytes);
  config.compute_scratch = ByteSpan(m.scratch, kRigScratchBytes);
  config.epsilon_budget = 50.0;
  config.delta = 1e-5;
  config.task_refresh_ms = 5000;
  config.retry_min_ms = 200;
  config.retry_max_ms = 3200;
}

ByteSpan RigDevice::memory() {
  return ByteSpan(TheRigMemory().client[index], kRigMemoryBytes);
}

Status RigDevice::Reboot(bool halt_after_persist) {
  transport.Reset();
  entropy = TestEntropy(5000 + index);  // a different noise stream
  config.halt_after_persist = halt_after_persist;
  return client.Init(config, memory());
}

FakeAggregatorConfig ClientRig::DefaultConfig() {
  FakeAggregatorConfig c;
  c.job_id = 7;
  c.first_round = 1;
  c.lambda = 0.5;
  c.gamma = 1.0;
  c.clip = 0.5;
  c.sigma = 2.0;
  return c;
}

ClientRig::ClientRig(const LinkConfig& link, const FakeAggregatorConfig& config)
    : server_(config,
              Span<FakeDeviceEntry>(TheRigMemory().table, 4 * kRigDevices),
              Span<Real>(TheRigMemory().model, kRigDim),
              Span<Real>(TheRigMemory().u_sum, kRigDim),
              Span<Real>(TheRigMemory().decode, kRigDim)),
      device0_(0, server_, trainer_, link),
      device1_(1, server_, trainer_, link),
      device2_(2, server_, trainer_, link),
      devices_{&device0_, &device1_, &device2_} {
  for (Real& z : TheRigMemory().model) z = 0;
  for (RigDevice* d : devices_) {
    server_.AddDevice(d->id).IgnoreError();
    d->client.Init(d->config, d->memory()).IgnoreError();
  }
}

void ClientRig::PollOnce() {
  for (RigDevice* d : devices_) {
    d->client.Poll(now_ms_).IgnoreError();
    d->transport.Poll(0).status().IgnoreError();
  }
  now_ms_ += 100;
}

bool ClientRig::RunUntilRoundComplete(size_t devices, size_t max_iterations) {
  for (size_t i = 0; i < max_iterations; ++i) {
    if (server_.accepted_this_round() >= devices) return true;
    PollOnce();
  }
  return server_.accepted_this_round() >= devices;
}

bool ClientRig::Drain(size_t max_iterations) {
  for (size_t i = 0; i < max_iterations; ++i) {
    bool busy = false;
    for (RigDevice* d : devices_) {
      busy = busy || !d->client.pending_upload().empty() ||
             d->client.state() == ClientState::kUploading;
    }
    if (!busy) return true;
    PollOnce();
  }
  return false;
}

}  // namespace edgeadmm::testing
