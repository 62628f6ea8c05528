// Firmware example (and its host twin): one MCU-sized party of papers
// 000/003's ADMM sharing (issue 15). Party 1 of the a9a vertical split holds
// the first 66 feature columns of 1,000 records, in flash; it runs the
// streaming AdmmSharingStep for two Jacobi rounds, moving the broadcast
// (y, u) in and its share out in blocks of kBlock rows, so no N-vector is ever
// in RAM. Prints, one "key bits value" line each, x̃'s norm and every entry
// of the share in three modes: no noise, the paper's parameter noise (eq.
// 16) and the rigorous share noise (keyed, share_noise_stream.h), then
// whether a resent block is bit-identical and the memory used.
// compare_output.py checks host and Cortex-M4F output against
// expected_output.txt (written by the host build).
//
// The broadcast is the one the gateway sends in round 1 (x = z = 0, so u = 0
// and y = ∇l(0) = −b/2 for the logistic loss, Lemma 2 of paper 000: the labels
// b stay at the gateway; the shard carries them only to form this y) and a
// fixed synthetic one in round 2 (the server's z-update is not run here).
//
// UNSAFE AS A TEMPLATE FOR PRODUCTION: the DRBG is seeded from TestEntropy
// (a public function of a fixed seed) so that both runs see the same noise.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "a9a_column_block.h"
#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/share_noise_stream.h"
#include "edgeadmm/workspace.h"
#include "example_output.h"

namespace edgeadmm {
namespace {

constexpr size_t kN = kShardSamples;
constexpr size_t kDim = kShardDim;
constexpr size_t kBlock = 64;  // rows per Block1/Block2 block (≤ 1 KiB f32)
constexpr Real kLambda = ToReal(0.1);
constexpr Real kRho = 1.0;
constexpr double kSigma = 0.5;
constexpr uint64_t kSeed = 20261126;
constexpr char kPersonalization[] = "edgeadmm-example-sharing";

// The step's workspace and the two block buffers: a formula in p and B.
alignas(Workspace::kAlignment)
    std::byte memory[AdmmSharingStep::StreamingBytes(kDim, kBlock)];

using example::PrintReal;

// "<prefix>_<suffix>", e.g. "paper_417" or "paper_x_norm".
void Key(const char* prefix, const char* suffix, char* key, size_t size) {
  example::FormatTo(key, size, "%s_%s", prefix, suffix);
}
void RowKey(const char* prefix, size_t row, char* key, size_t size) {
  example::FormatTo(key, size, "%s_%u", prefix, static_cast<unsigned>(row));
}

// Rows [first, first + y.size()) of round `round`'s broadcast.
void Broadcast(int round, size_t first, Span<Real> y, Span<Real> u) {
  for (size_t j = 0; j < y.size(); ++j) {
    const size_t i = first + j;
    const double b = static_cast<double>(kShardLabels[i]);
    if (round == 0) {
      y[j] = ToReal(-0.5 * b);
      u[j] = 0;
    } else {
      y[j] = ToReal(-0.5 * b +
                    0.01 * static_cast<double>(static_cast<int>(i % 11) - 5));
      u[j] = ToReal(0.002 *
                    static_cast<double>(static_cast<int>((7 * i) % 13) - 6));
    }
  }
}

// Two streamed rounds in `mode`, then the share printed block by block.
[[gnu::noinline]] Status RunParty(SharingNoise mode, const char* name) {
  Workspace ws(ByteSpan(memory, sizeof(memory)));
  AdmmSharingStep step;
  EDGEADMM_TRY(step.Init(ws, Span<const Real>(kShardFeatures, kN * kDim), kN,
                         kDim, kLambda, kRho));
  EDGEADMM_TRY_ASSIGN(const Span<Real> y, ws.Allocate<Real>(kBlock));
  EDGEADMM_TRY_ASSIGN(const Span<Real> u, ws.Allocate<Real>(kBlock));

  TestEntropy entropy(kSeed);
  Drbg drbg;
  EDGEADMM_TRY(drbg.Init(
      entropy,
      ConstByteSpan(reinterpret_cast<const std::byte*>(kPersonalization),
                    sizeof(kPersonalization) - 1)));
  DiscreteGaussianSampler sampler(drbg);
  SharingNoiseParams noise;
  noise.mode = mode;
  noise.sigma = mode == SharingNoise::kNone ? 0 : kSigma;

  for (int round = 0; round < 2; ++round) {
    EDGEADMM_TRY(step.BeginRound());
    for (size_t first = 0; first < kN; first += kBlock) {
      const size_t b = kBlock < kN - first ? kBlock : kN - first;
      Broadcast(round, first, y.first(b), u.first(b));
      // own share recomputed from x̃ (u here includes it: v of eq. 6).
      EDGEADMM_TRY(step.AccumulateBlock(first, y.first(b), u.first(b),
                                        Span<const Real>()));
    }
    EDGEADMM_TRY(step.Solve(noise, sampler).status());
  }
  Real norm = 0;
  for (size_t c = 0; c < kDim; ++c)
    norm += step.x_tilde()[c] * step.x_tilde()[c];
  char key[32];
  Key(name, "x_norm", key, sizeof(key));
  PrintReal(key, std::sqrt(norm));

  // The round's share key, drawn once (persisted with x̃ on a real device).
  std::byte share_key[ShareNoiseStream::kKeyBytes];
  EDGEADMM_TRY(
      ShareNoiseStream::NewKey(drbg, ByteSpan(share_key, sizeof(share_key))));
  const ConstByteSpan share_key_span(share_key, sizeof(share_key));
  Real resend_equal = 1;
  for (size_t first = 0; first < kN; first += kBlock) {
    const size_t b = kBlock < kN - first ? kBlock : kN - first;
    EDGEADMM_TRY(step.ShareBlock(first, noise, share_key_span, y.first(b)));
    // A resend of the block (u's buffer) must be the same bits.
    EDGEADMM_TRY(step.ShareBlock(first, noise, share_key_span, u.first(b)));
    if (std::memcmp(y.data(), u.data(), b * sizeof(Real)) != 0)
      resend_equal = 0;
    for (size_t j = 0; j < b; ++j) {
      RowKey(name, first + j, key, sizeof(key));
      PrintReal(key, y[j]);
    }
  }
  Key(name, "resend_equal", key, sizeof(key));
  PrintReal(key, resend_equal);
  return Status::Ok();
}

Status Run() {
  PrintReal("streaming_bytes",
            static_cast<Real>(AdmmSharingStep::StreamingBytes(kDim, kBlock)));
  EDGEADMM_TRY(RunParty(SharingNoise::kNone, "none"));
  EDGEADMM_TRY(RunParty(SharingNoise::kPaper, "paper"));
  return RunParty(SharingNoise::kRigorous, "rigorous");
}

}  // namespace
}  // namespace edgeadmm

int main() { return edgeadmm::example::Finish(edgeadmm::Run()); }
