// StaticDeviceClient: a DeviceClient, its LocalTrainer, the trainer's
// workspace, the compute scratch, the client's message buffers and the CoAP
// client's two datagram buffers in ONE object whose size is a compile-time
// function of the job's shape, for firmware that declares it `static` and
// never touches a heap (docs/sdk.md, "StaticDeviceClient").
//
// clang-format off
//   using Shape = DeviceShape</*dimension*/ 3, /*max records*/ 8,
//                             AlgorithmBit(kMyAlgorithm),  // an AlgorithmKind
//                             LossBit(LossKind::kLogistic)>;
//   static StaticDeviceClient<Shape> device;   // sizeof: Shape's arena + objects
//   DeviceClientConfig c;  // device id, transport, storage, entropy, data...
//   EDGEADMM_TRY(device.Init(c));  // RESOURCE_EXHAUSTED if data exceed Shape
//   while (device.client().state() != ClientState::kDone) device.client().Poll(now);
// clang-format on
//
// A shape opts into secure-aggregation rounds with WithSecureRounds<Shape,
// k> (at most k graph neighbours per round, rounds of any size): its arena
// adds SecureRoundMemoryBytes(dim, k) and its table the secure-round hooks;
// a shape without it links nothing of SecAgg+.
//
// Every size below is the SDK's own formula (LocalTrainer::WorkspaceBytes,
// DeviceClient::ComputeScratchBytes / MemoryBytes, SecureRoundMemoryBytes,
// coap::CoapDatagramBytes): nothing is re-derived here. Init refuses data
// whose dimension or record count exceed the shape (RESOURCE_EXHAUSTED), so
// the arena can never be overrun; a task of a job whose dimension differs
// from the data's is refused by the DeviceClient (FAILED_PRECONDITION,
// reported to the aggregator), and a task of an algorithm or loss outside
// the shape as UNIMPLEMENTED (reported): the client is initialised with the
// shape's ClientAlgorithmTable, so a firmware links only the steps (and
// prox methods) of the shape's algorithms and losses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/device_client_secagg.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

// Sets of algorithms and losses, one bit per enumerator value.
constexpr uint32_t AlgorithmBit(AlgorithmKind algorithm) {
  return static_cast<uint8_t>(algorithm) < 32
             ? uint32_t{1} << static_cast<uint8_t>(algorithm)
             : 0;
}
constexpr uint32_t LossBit(LossKind loss) {
  return uint32_t{1} << static_cast<uint8_t>(loss);
}
// Every algorithm the DeviceClient runs (kLocalStepRunners).
constexpr uint32_t ClientAlgorithmBits() {
  uint32_t bits = 0;
  for (const LocalStepRunner* r : kLocalStepRunners) {
    bits |= AlgorithmBit(r->algorithm);
  }
  return bits;
}
// The losses the device steps support for every algorithm.
inline constexpr uint32_t kClientLosses =
    LossBit(LossKind::kLogistic) | LossBit(LossKind::kSquared);

// The shape of the jobs one firmware runs, as run-time values (the
// non-template part of StaticDeviceClient uses it).
struct DeviceShapeLimits {
  size_t dimension = 0;     // model coordinates p
  size_t max_records = 0;   // local records
  uint32_t algorithms = 0;  // AlgorithmBit set
  uint32_t losses = 0;      // LossBit set
  size_t block_bytes = 0;   // CoAP block size (16..1024, a power of two)
};

// Trainer workspace for every (algorithm, loss) of the sets at this shape:
// the largest LocalTrainer::WorkspaceBytes (which is at least what
// DeviceClient::Init asks of any workspace: the smallest step's need).
constexpr size_t ShapeTrainerWorkspaceBytes(const DeviceShapeLimits& shape) {
  size_t most = 0;
  for (const LocalStepSize& r : kLocalStepSizes) {
    if ((shape.algorithms & AlgorithmBit(r.algorithm)) == 0) continue;
    for (const LossKind l : {LossKind::kLogistic, LossKind::kSquared}) {
      if ((shape.losses & LossBit(l)) == 0) continue;
      const size_t bytes = LocalTrainer::WorkspaceBytes(
          r.workspace_bytes(l, shape.max_records, shape.dimension),
          shape.dimension);
      most = bytes > most ? bytes : most;
    }
  }
  return most;
}

// OK if a device with `data` fits the shape; RESOURCE_EXHAUSTED if its
// dimension or record count exceed it; INVALID_ARGUMENT for empty data.
Status CheckDeviceShape(const DeviceShapeLimits& shape,
                        const DatasetView& data);
// OK if a job of `algorithm` with `loss` at `dimension` runs on the shape;
// RESOURCE_EXHAUSTED beyond its dimension, UNIMPLEMENTED for an algorithm
// or loss outside its sets.
Status CheckJobShape(const DeviceShapeLimits& shape, AlgorithmKind algorithm,
                     LossKind loss, size_t dimension);

namespace internal {

// The registered task adapter of one algorithm, alone: defined for every
// algorithm of kLocalStepRunners (sdk/src/steps/algorithm_tasks.cc), so a
// shape references only its own lines.
template <AlgorithmKind kAlgorithm>
const AlgorithmTask* AlgorithmTaskOf();

// ClientAlgorithmTable::find of a shape: only its algorithms' adapters are
// referenced, so only their steps are linked.
template <uint32_t kAlgorithms, size_t... kIndex>
const AlgorithmTask* FindShapeTaskAt(AlgorithmKind algorithm,
                                     std::index_sequence<kIndex...>) {
  const AlgorithmTask* found = nullptr;
  auto arm = [&](auto index) {
    constexpr AlgorithmKind kAlgorithm =
        kLocalStepRunners[decltype(index)::value]->algorithm;
    if constexpr ((kAlgorithms & AlgorithmBit(kAlgorithm)) != 0) {
      if (found == nullptr && algorithm == kAlgorithm) {
        found = AlgorithmTaskOf<kAlgorithm>();
      }
    }
  };
  (arm(std::integral_constant<size_t, kIndex>()), ...);
  return found;
}
template <uint32_t kAlgorithms>
const AlgorithmTask* FindShapeTask(AlgorithmKind algorithm) {
  return FindShapeTaskAt<kAlgorithms>(
      algorithm, std::make_index_sequence<kLocalStepRunnerCount>());
}
// True when an algorithm of the set has a streamed step
// (LocalStepRunner::streams).
constexpr bool ShapeStreams(uint32_t algorithms) {
  for (const LocalStepRunner* r : kLocalStepRunners) {
    if (r->streams && (algorithms & AlgorithmBit(r->algorithm)) != 0) {
      return true;
    }
  }
  return false;
}

template <AlgorithmKind kAlgorithm, uint32_t kLosses>
Status InitShapeTrainerFor(LocalTrainer& trainer, ByteSpan workspace,
                           const DatasetView& data,
                           const TrainerConfig& config) {
  if constexpr ((kLosses & LossBit(LossKind::kLogistic)) != 0) {
    if (config.loss.kind == LossKind::kLogistic) {
      return InitLocalTrainerFor<kAlgorithm, LossKind::kLogistic>(
          trainer, workspace, data, config);
    }
  }
  if constexpr ((kLosses & LossBit(LossKind::kSquared)) != 0) {
    if (config.loss.kind == LossKind::kSquared) {
      return InitLocalTrainerFor<kAlgorithm, LossKind::kSquared>(
          trainer, workspace, data, config);
    }
  }
  return Status::Unimplemented();
}

// ClientAlgorithmTable::init_trainer of a shape: InitLocalTrainerFor of
// its (algorithm, loss) pairs only (the runners of kLocalStepRunners in its
// set); UNIMPLEMENTED for any other.
template <uint32_t kAlgorithms, uint32_t kLosses, size_t... kIndex>
Status InitShapeTrainerAt(LocalTrainer& trainer, ByteSpan workspace,
                          const DatasetView& data, const TrainerConfig& config,
                          std::index_sequence<kIndex...> /*runners*/) {
  Status status = Status::Unimplemented();
  bool matched = false;
  // One arm per registered runner; only the arms of the shape's set exist.
  auto arm = [&](auto index) {
    constexpr AlgorithmKind kAlgorithm =
        kLocalStepRunners[decltype(index)::value]->algorithm;
    if constexpr ((kAlgorithms & AlgorithmBit(kAlgorithm)) != 0) {
      if (!matched && config.algorithm == kAlgorithm) {
        matched = true;
        status = InitShapeTrainerFor<kAlgorithm, kLosses>(trainer, workspace,
                                                          data, config);
      }
    }
  };
  (arm(std::integral_constant<size_t, kIndex>()), ...);
  return status;
}
template <uint32_t kAlgorithms, uint32_t kLosses>
Status InitShapeTrainer(LocalTrainer& trainer, ByteSpan workspace,
                        const DatasetView& data, const TrainerConfig& config) {
  return InitShapeTrainerAt<kAlgorithms, kLosses>(
      trainer, workspace, data, config,
      std::make_index_sequence<kLocalStepRunnerCount>());
}

// ClientAlgorithmTable::secure_rounds of a shape: the hooks only for a
// shape with secure rounds (so only its image links SecAgg+).
template <bool kSecure>
constexpr const SecureRoundHooks* ShapeSecureRounds() {
  if constexpr (kSecure) {
    return &DeviceClient::kSecureRoundHooks;
  } else {
    return nullptr;
  }
}

}  // namespace internal

// The shape as a type: the template argument of StaticDeviceClient.
template <size_t kDim, size_t kRecords,
          uint32_t kAlgorithmSet = ClientAlgorithmBits(),
          uint32_t kLossSet = kClientLosses, size_t kBlock = 1024>
struct DeviceShape {
  static_assert(kDim > 0 && kRecords > 0, "an empty shape");
  static_assert((kAlgorithmSet & ~ClientAlgorithmBits()) == 0,
                "an algorithm the DeviceClient does not run");
  static_assert(kAlgorithmSet != 0 && kLossSet != 0, "no algorithm or loss");
  static_assert((kLossSet & ~kClientLosses) == 0, "a loss the steps lack");
  static_assert(coap::BlockSzx(kBlock) <= 6, "CoAP blocks of 16..1024 bytes");
  static constexpr size_t kDimension = kDim;
  static constexpr size_t kMaxRecords = kRecords;
  static constexpr uint32_t kAlgorithms = kAlgorithmSet;
  static constexpr uint32_t kLosses = kLossSet;
  static constexpr size_t kBlockBytes = kBlock;
  static constexpr DeviceShapeLimits kLimits{kDim, kRecords, kAlgorithmSet,
                                             kLossSet, kBlock};
  // Secure-aggregation rounds: off (WithSecureRounds turns them on).
  static constexpr size_t kSecAggNeighbours = 0;
};

// A shape that also joins secure-aggregation rounds of at most k graph
// neighbours (DeviceClientConfig::secagg_max_neighbours).
template <typename Shape, size_t kNeighbours>
struct WithSecureRounds : Shape {
  static_assert(kNeighbours > 0, "secure rounds need k >= 1 neighbours");
  static constexpr size_t kSecAggNeighbours = kNeighbours;
};

template <typename Shape>
class StaticDeviceClient {
 public:
  static constexpr DeviceShapeLimits kLimits = Shape::kLimits;
  // A shape with an algorithm whose step streams (LocalStepRunner::streams)
  // runs it as a streaming party (docs/sdk.md, "Streaming party"): its task
  // and upload move one CoAP block of float32 values at a time, so neither
  // per-record vector is ever held; the transport must stream bodies (the
  // SDK's CoapClient).
  static constexpr bool kStreams = internal::ShapeStreams(Shape::kAlgorithms);
  static constexpr size_t kStreamRows = kStreams ? Shape::kBlockBytes / 4 : 0;
  // The client runs the shape's algorithms and losses only (and links only
  // their steps, and the streaming party only for a streamed step); a task of
  // another one is refused as UNIMPLEMENTED.
  // Secure rounds (WithSecureRounds): at most k neighbours; 0: off.
  static constexpr size_t kSecAggNeighbours = Shape::kSecAggNeighbours;
  static constexpr bool kSecure = kSecAggNeighbours > 0;
  static constexpr ClientAlgorithmTable kAlgorithmTable{
      internal::FindShapeTask<Shape::kAlgorithms>,
      internal::InitShapeTrainer<Shape::kAlgorithms, Shape::kLosses>,
      kStreams ? &internal::CreateClientStreaming : nullptr,
      internal::ShapeSecureRounds<kSecure>()};
  static constexpr size_t kTrainerWorkspaceBytes =
      ShapeTrainerWorkspaceBytes(kLimits);
  static constexpr size_t kComputeScratchBytes =
      DeviceClient::ComputeScratchBytes(Shape::kDimension);
  static constexpr size_t kSecureRoundBytes =
      kSecure ? SecureRoundMemoryBytes(Shape::kDimension, kSecAggNeighbours)
              : 0;
  static constexpr size_t kClientMemoryBytes =
      DeviceClient::MemoryBytes(Shape::kDimension, 0, kStreamRows) +
      kSecureRoundBytes;
  static constexpr size_t kDatagramBytes =
      coap::CoapDatagramBytes(Shape::kBlockBytes);
  // The arena: the slices above (and two datagrams) end to end, each on a
  // Workspace::kAlignment boundary.
  static constexpr size_t kArenaBytes =
      Workspace::Bytes<std::byte>(kTrainerWorkspaceBytes) +
      Workspace::Bytes<std::byte>(kComputeScratchBytes) +
      Workspace::Bytes<std::byte>(kClientMemoryBytes) +
      2 * Workspace::Bytes<std::byte>(kDatagramBytes);

  StaticDeviceClient() = default;
  StaticDeviceClient(const StaticDeviceClient&) = delete;
  StaticDeviceClient& operator=(const StaticDeviceClient&) = delete;

  // Checks config.data against the shape (CheckDeviceShape), points the
  // trainer, its workspace and the compute scratch into the arena (a config
  // that sets them, max_vector, or a stream_rows other than kStreamRows is
  // refused: INVALID_ARGUMENT), sets stream_rows and the secure-round limits
  // (a config with another nonzero limit: INVALID_ARGUMENT), and runs
  // DeviceClient::Init with the client's slice. May be called again (a
  // restart, as DeviceClient::Init).
  Status Init(DeviceClientConfig config) {
    if (config.trainer != nullptr || !config.trainer_workspace.empty() ||
        !config.compute_scratch.empty() || config.max_vector != 0 ||
        (config.stream_rows != 0 && config.stream_rows != kStreamRows) ||
        (config.secagg_max_neighbours != 0 &&
         config.secagg_max_neighbours != kSecAggNeighbours)) {
      return Status::InvalidArgument();
    }
    config.stream_rows = kStreamRows;
    config.secagg_max_neighbours = kSecAggNeighbours;
    EDGEADMM_TRY(CheckDeviceShape(kLimits, config.data));
    Workspace arena(ByteSpan(arena_, kArenaBytes));
    EDGEADMM_TRY_ASSIGN(config.trainer_workspace,
                        arena.Allocate<std::byte>(kTrainerWorkspaceBytes));
    EDGEADMM_TRY_ASSIGN(config.compute_scratch,
                        arena.Allocate<std::byte>(kComputeScratchBytes));
    EDGEADMM_TRY_ASSIGN(const ByteSpan memory,
                        arena.Allocate<std::byte>(kClientMemoryBytes));
    config.trainer = &trainer_;
    return client_.Init(config, memory, kAlgorithmTable);
  }

  // The CoAP client's datagram buffers (CoapClientConfig tx_buffer,
  // rx_buffer) and its block size exponent (block_szx): available before
  // Init, disjoint from everything Init carves.
  ByteSpan coap_tx_buffer() { return Datagram(0); }
  ByteSpan coap_rx_buffer() { return Datagram(1); }
  static constexpr uint8_t coap_block_szx() {
    return coap::BlockSzx(Shape::kBlockBytes);
  }

  DeviceClient& client() { return client_; }
  const DeviceClient& client() const { return client_; }
  // The client's trainer (its ledger: LocalEpsilon).
  const LocalTrainer& trainer() const { return trainer_; }
  // The arena (tests: every slice lies inside it).
  ConstByteSpan arena() const { return ConstByteSpan(arena_, kArenaBytes); }

 private:
  static constexpr size_t kDatagramsOffset =
      kArenaBytes - 2 * Workspace::Bytes<std::byte>(kDatagramBytes);
  ByteSpan Datagram(size_t index) {
    return ByteSpan(arena_ + kDatagramsOffset +
                        index * Workspace::Bytes<std::byte>(kDatagramBytes),
                    kDatagramBytes);
  }

  alignas(Workspace::kAlignment) std::byte arena_[kArenaBytes];
  LocalTrainer trainer_;
  DeviceClient client_;
};

}  // namespace edgeadmm
