// The device client's tables of every algorithm a device runs
// (DeviceClient::Init(config, memory)): the task adapters' registration
// table (steps/algorithm_tasks.cc), LocalTrainer::Init and the streaming
// party; and the same with secure-aggregation rounds, which a client opts
// into (their SecAgg+ crypto is linked only then). A StaticDeviceClient
// passes its shape's table instead (static_device_client.h).
#include "client/streaming_party.h"
#include "edgeadmm/device_client.h"
#include "steps/algorithm_task.h"

namespace edgeadmm {
namespace {

Status InitAnyTrainer(LocalTrainer& trainer, ByteSpan workspace,
                      const DatasetView& data, const TrainerConfig& config) {
  return trainer.Init(workspace, data, config);
}

constexpr ClientAlgorithmTable kAllAlgorithms{
    internal::FindAlgorithmTask, InitAnyTrainer,
    internal::CreateClientStreaming, nullptr};

}  // namespace

const ClientAlgorithmTable& AllClientAlgorithms() { return kAllAlgorithms; }

const ClientAlgorithmTable& AllClientAlgorithmsWithSecureRounds() {
  static constexpr ClientAlgorithmTable kWithSecureRounds{
      internal::FindAlgorithmTask, InitAnyTrainer,
      internal::CreateClientStreaming, &DeviceClient::kSecureRoundHooks};
  return kWithSecureRounds;
}

}  // namespace edgeadmm
