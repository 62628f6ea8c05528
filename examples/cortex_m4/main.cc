// Firmware example (and its host twin): a few private ADMM local steps of
// paper 002 (Alg. 3, eqs. 6-7 with clipping) on a 256-record a9a shard kept
// in flash, against a fixed global model z. Prints, one "key hex value" line
// each, the first DRBG bytes, the first noise draws, each update's norm and
// the local ε of the device ledger. The same source runs on the host and on
// the Cortex-M4F; compare_output.py checks both against expected_output.txt.
//
// UNSAFE AS A TEMPLATE FOR PRODUCTION: the DRBG is seeded from TestEntropy
// (a public function of a fixed seed) so that both runs see the same noise.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/prox_admm_step.h"
#include "edgeadmm/wire/update.h"
#include "edgeadmm/workspace.h"
#include "example_output.h"
#include "reference_job.h"

namespace edgeadmm {
namespace {

using reference_job::kDelta;
using reference_job::kDim;
using reference_job::kSamples;
using reference_job::kSeed;
using reference_job::Personalization;
constexpr int kSteps = 3;

alignas(Workspace::kAlignment) std::byte
    workspace_memory[ProxAdmmStep::WorkspaceBytes(LossKind::kLogistic, kSamples,
                                                  kDim)];
Real z[kDim];
Real u[kDim];
Real delta_u[kDim];
// Encoded Update message (header + p float32 coordinates).
std::byte upload[128 + 4 * kDim];

using example::Print;
using example::PrintReal;

void PrintBytes(const char* key, const uint8_t* bytes, size_t size) {
  char line[160];
  size_t n = 0;
  while (key[n] != '\0' && n < 32) {
    line[n] = key[n];
    ++n;
  }
  line[n++] = ' ';
  for (size_t i = 0; i < size && n + 3 < sizeof(line); ++i) {
    line[n++] = "0123456789abcdef"[bytes[i] >> 4];
    line[n++] = "0123456789abcdef"[bytes[i] & 15];
  }
  line[n++] = '\n';
  line[n] = '\0';
  Print(line);
}

Real Norm(const Real* v) {
  Real sum = 0;
  for (size_t i = 0; i < kDim; ++i) sum += v[i] * v[i];
  return std::sqrt(sum);
}

// Identical DRBG bytes on both sides: a DRBG seeded like the step's. This
// and RunSteps are kept out of line so that their DRBGs and samplers never
// share one stack frame (the peak stack counts towards the RAM budget).
[[gnu::noinline]] Status PrintDrbgSample() {
  const ConstByteSpan personalization = Personalization();
  TestEntropy entropy(kSeed);
  Drbg drbg;
  EDGEADMM_TRY(drbg.Init(entropy, personalization));
  uint8_t bytes[32];
  EDGEADMM_TRY(drbg.Generate(
      ByteSpan(reinterpret_cast<std::byte*>(bytes), sizeof(bytes))));
  PrintBytes("drbg_bytes", bytes, sizeof(bytes));
  GaussianSampler sampler(drbg);
  for (int i = 0; i < 4; ++i) {
    EDGEADMM_TRY_ASSIGN(const double draw, sampler.Standard());
    char key[16] = "noise_draw_0";
    key[11] = static_cast<char>('0' + i);
    PrintReal(key, draw);
  }
  return Status::Ok();
}

[[gnu::noinline]] Status RunSteps() {
  const ConstByteSpan personalization = Personalization();
  EDGEADMM_TRY_ASSIGN(const DatasetView data, reference_job::Shard());
  Workspace ws(ByteSpan(workspace_memory, sizeof(workspace_memory)));
  const Loss loss;  // logistic
  ProxAdmmStep step;
  // The loss is fixed at compile time: only the Newton-CG prox is linked.
  EDGEADMM_TRY(step.InitFor<LossKind::kLogistic>(ws, data, loss));

  TestEntropy entropy(kSeed);
  Drbg drbg;
  EDGEADMM_TRY(drbg.Init(entropy, personalization));
  DiscreteGaussianSampler noise(drbg);
  DevicePrivacyLedger ledger;

  const ProxAdmmParams params = reference_job::Params();
  reference_job::FillGlobalModel(z);

  for (int k = 0; k < kSteps; ++k) {
    EDGEADMM_TRY_ASSIGN(
        const ProxAdmmReport report,
        step.Run(params, Span<const Real>(z, kDim), Span<Real>(u, kDim), noise,
                 Span<Real>(delta_u, kDim)));
    EDGEADMM_TRY(
        ledger.Charge(params.ReplaceOneSensitivity(kDim), params.NoiseStd()));
    char key[24] = "step_0_update_norm";
    key[5] = static_cast<char>('0' + k);
    PrintReal(key, Norm(delta_u));
    std::memcpy(key + 7, "prox_norm", 10);
    PrintReal(key, report.step_norm);
  }
  PrintReal("u_norm", Norm(u));
  PrintReal("u_first", u[0]);
  EDGEADMM_TRY_ASSIGN(const double epsilon, ledger.Epsilon(kDelta));
  PrintReal("local_epsilon", epsilon);

  // The last Δu as it would be uploaded (nanopb, float32 LE coordinates).
  const edgeadmm_wire_Update header =
      reference_job::UploadHeader(kSteps - 1, ledger, epsilon);
  const StatusWithSize encoded =
      wire::EncodeUpdate(header, Span<const Real>(delta_u, kDim),
                         ByteSpan(upload, sizeof(upload)));
  EDGEADMM_TRY(encoded.status());
  PrintReal("upload_bytes", static_cast<Real>(encoded.size()));
  return Status::Ok();
}

Status Run() {
  EDGEADMM_TRY(PrintDrbgSample());
  return RunSteps();
}

}  // namespace
}  // namespace edgeadmm

int main() { return edgeadmm::example::Finish(edgeadmm::Run()); }
