// The device client's table of every algorithm a device runs
// (DeviceClient::Init(config, memory)): the task adapters' registration
// table (steps/algorithm_tasks.cc), LocalTrainer::Init, the streaming
// party and secure-aggregation rounds. A StaticDeviceClient passes its shape's
// table instead (static_device_client.h).
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
    internal::CreateClientStreaming, &DeviceClient::kSecureRoundHooks};

}  // namespace

const ClientAlgorithmTable& AllClientAlgorithms() { return kAllAlgorithms; }

}  // namespace edgeadmm
