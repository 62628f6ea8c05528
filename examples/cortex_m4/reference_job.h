// The reference job of the Cortex-M4 example (main.cc) and its benchmark
// (step_benchmark.cc): logistic loss on the generated a9a shard in flash
// (256 records, p = 123), the example's private ADMM parameters, a fixed
// global model z, the DRBG seed and the upload's header.
//
// UNSAFE AS A TEMPLATE FOR PRODUCTION: the DRBG is seeded from TestEntropy
// (a public function of kSeed) so that every run sees the same noise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "a9a_shard.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/prox_admm_step.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::reference_job {

inline constexpr size_t kSamples = kShardSamples;
inline constexpr size_t kDim = kShardDim;
inline constexpr uint64_t kSeed = 20261122;
inline constexpr double kDelta = 1e-5;
inline constexpr char kPersonalization[] = "edgeadmm-example-cortex-m4";

inline ConstByteSpan Personalization() {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(kPersonalization),
                       sizeof(kPersonalization) - 1);
}

// The shard in flash.
inline Result<DatasetView> Shard() {
  return DatasetView::Create(Span<const Real>(kShardFeatures, kSamples * kDim),
                             Span<const Real>(kShardLabels, kSamples), kSamples,
                             kDim);
}

// λ = 0.5, s = 1, C = 1, σ = 4 (noise in the state).
inline ProxAdmmParams Params() {
  ProxAdmmParams params;
  params.lambda = 0.5;
  params.step = 1.0;
  params.clip = 1.0;
  params.sigma = 4.0;
  return params;
}

// A fixed global model: a small deterministic pattern.
inline void FillGlobalModel(Real* z) {
  for (size_t j = 0; j < kDim; ++j) {
    z[j] = ToReal(0.05 * static_cast<double>(static_cast<int>(j % 7) - 3));
  }
}

// The Update header of round `round`'s Δu with the ledger's ε at kDelta.
inline edgeadmm_wire_Update UploadHeader(uint64_t round,
                                         const DevicePrivacyLedger& ledger,
                                         double epsilon) {
  edgeadmm_wire_Update header = edgeadmm_wire_Update_init_zero;
  header.job_id = 1;
  header.round_id = round;
  std::memcpy(header.device_id, "example-m4", sizeof("example-m4"));
  header.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U;
  header.dimension = static_cast<uint32_t>(kDim);
  header.has_ledger = true;
  header.ledger.participations = ledger.participations();
  header.ledger.epsilon = epsilon;
  header.ledger.delta = kDelta;
  header.ledger.conversion =
      edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
  return header;
}

}  // namespace edgeadmm::reference_job
