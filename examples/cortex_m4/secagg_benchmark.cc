// Benchmark firmware (not a timed test): what one device computes for a
// SecAgg+ round (sdk/src/secagg) on the MPS2-AN386 board under QEMU
// `-icount shift=0` (instruction_timer.h: one timer tick = 40
// instructions; run_secagg_benchmark.py runs it twice, checks the
// calibration and that both runs agree).
//
// The round: n = 16 devices, k = 8 neighbours, threshold s = 5, an input of
// 123 words (the reference job's p) mod 2^32. Device 0's phases:
//   keys   = two X25519 key pairs (share encryption, masks), the self-mask
//            seed and its commitment (advertise keys);
//   shares = the neighbour graph from the public seed, Shamir splits of the
//            self seed and the mask private key into k shares, and per
//            neighbour the pairwise encryption key and one sealed message
//            (share keys);
//   mask   = the masked input: the self mask and k pairwise seeds (X25519 +
//            HKDF) expanded by AES-256-CTR (masked input);
//   reveal = opening the k sealed messages it received, to return one
//            share of each (unmasking).
// Mbed TLS allocates (bignums, the cipher layer) from platform/dtls's static
// pool; its high-water mark after each phase is printed, and the bytes of
// the device's round state below (keys, shares, sealed messages).
//
// UNSAFE AS A TEMPLATE FOR PRODUCTION: the DRBG is seeded from TestEntropy
// (a public function of a fixed seed).
#include <cstddef>
#include <cstdint>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_memory_pool.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/result.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/masked_input.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/secagg/shamir.h"
#include "edgeadmm/secagg/share_transport.h"
#include "instruction_timer.h"

namespace edgeadmm {
namespace {

constexpr uint32_t kDevices = 16;
constexpr uint32_t kDegree = 8;
constexpr uint32_t kThreshold = kDegree / 2 + 1;
constexpr size_t kLength = 123;
constexpr uint64_t kRound = 1;
constexpr uint32_t kSelf = 0;

void PrintCount(const char* name, uint64_t value) {
  char line[96];
  baremetal::Format(line, sizeof(line), "%s %llu\n", name,
                    static_cast<unsigned long long>(value));
  board::ConsoleWrite(line);
}

struct Keys {
  std::byte enc_private[32], enc_public[32], mask_private[32], mask_public[32];
};

// The device's round state (what it keeps between phases).
struct RoundState {
  Keys own;
  std::byte self_seed[32];
  std::byte commitment[32];
  uint32_t neighbours[kDegree];
  ShamirShare seed_shares[kDegree];
  ShamirShare key_shares[kDegree];
  std::byte sealed[kDegree][kSealedSharesBytes];
};

Keys peers[kDevices];  // the other devices' keys (set up, not counted)
RoundState state;
uint32_t values[kLength];
TestEntropy entropy(33);
Drbg drbg;

ConstByteSpan C(const std::byte (&b)[32]) { return ConstByteSpan(b, 32); }
ByteSpan M(std::byte (&b)[32]) { return ByteSpan(b, 32); }

Status AdvertiseKeys() {
  EDGEADMM_TRY(
      X25519KeyPair(drbg, M(state.own.enc_private), M(state.own.enc_public)));
  EDGEADMM_TRY(
      X25519KeyPair(drbg, M(state.own.mask_private), M(state.own.mask_public)));
  EDGEADMM_TRY(drbg.Generate(M(state.self_seed)));
  return CommitSelfSeed(kRound, kSelf, C(state.self_seed), M(state.commitment));
}

Status ShareKeys() {
  std::byte graph_seed[kGraphSeedBytes] = {std::byte{7}};
  NeighbourGraph graph;
  EDGEADMM_TRY(graph.Init(ConstByteSpan(graph_seed, sizeof(graph_seed)),
                          kDevices, kDegree));
  EDGEADMM_TRY(
      graph.Neighbours(kSelf, Span<uint32_t>(state.neighbours, kDegree)));
  EDGEADMM_TRY(ShamirSplit(C(state.self_seed), kThreshold, kDegree, drbg,
                           Span<ShamirShare>(state.seed_shares, kDegree)));
  EDGEADMM_TRY(ShamirSplit(C(state.own.mask_private), kThreshold, kDegree, drbg,
                           Span<ShamirShare>(state.key_shares, kDegree)));
  for (uint32_t a = 0; a < kDegree; ++a) {
    const uint32_t j = state.neighbours[a];
    std::byte key[32];
    EDGEADMM_TRY(
        DerivePairwiseKey(C(state.own.enc_private), C(state.own.enc_public),
                          C(peers[j].enc_public),
                          PairwiseKeyPurpose::kShareEncryption, drbg, M(key)));
    EDGEADMM_TRY(SealShares(C(key), {kRound, kSelf, j},
                            {state.seed_shares[a], state.key_shares[a]},
                            ByteSpan(state.sealed[a], kSealedSharesBytes)));
  }
  return Status::Ok();
}

Status MaskedInputPhase() {
  SecAggPeerKey keys[kDegree];
  for (uint32_t a = 0; a < kDegree; ++a) {
    keys[a] = {state.neighbours[a], C(peers[state.neighbours[a]].mask_public)};
  }
  for (size_t w = 0; w < kLength; ++w) values[w] = static_cast<uint32_t>(w);
  MaskInputParams p;
  p.round_id = kRound;
  p.own_index = kSelf;
  p.bits = 32;
  p.self_seed = C(state.self_seed);
  p.mask_private = C(state.own.mask_private);
  p.mask_public = C(state.own.mask_public);
  p.neighbours = Span<const SecAggPeerKey>(keys, kDegree);
  p.random = &drbg;
  return MaskInput(p, Span<uint32_t>(values, kLength));
}

// Device 0 opens what its neighbours sent it. Here every neighbour's
// message is device 0's own to that neighbour, opened with the neighbour's
// key: the same work (one key agreement, one CCM decryption each).
Status Reveal() {
  for (uint32_t a = 0; a < kDegree; ++a) {
    const uint32_t j = state.neighbours[a];
    std::byte key[32];
    EDGEADMM_TRY(
        DerivePairwiseKey(C(peers[j].enc_private), C(peers[j].enc_public),
                          C(state.own.enc_public),
                          PairwiseKeyPurpose::kShareEncryption, drbg, M(key)));
    SharePair pair;
    EDGEADMM_TRY(OpenShares(C(key), {kRound, kSelf, j},
                            ConstByteSpan(state.sealed[a], kSealedSharesBytes),
                            pair));
  }
  return Status::Ok();
}

Status Phase(const char* name, const char* pool_name, Status (*run)()) {
  const uint32_t t0 = instruction_timer::Ticks();
  EDGEADMM_TRY(run());
  const uint32_t t1 = instruction_timer::Ticks();
  PrintCount(name, instruction_timer::Instructions(t0, t1));
  PrintCount(pool_name, dtls::DtlsPoolHighWater());
  return Status::Ok();
}

Status Run() {
  dtls::StartDtlsMemoryPool();  // Mbed TLS's allocator, as in the firmware
  EDGEADMM_TRY(drbg.Init(entropy, ConstByteSpan()));
  for (Keys& k : peers) {
    EDGEADMM_TRY(X25519KeyPair(drbg, M(k.enc_private), M(k.enc_public)));
    EDGEADMM_TRY(X25519KeyPair(drbg, M(k.mask_private), M(k.mask_public)));
  }
  PrintCount("round_state_bytes", sizeof(RoundState));
  EDGEADMM_TRY(
      Phase("keys_instructions", "keys_pool_high_water", AdvertiseKeys));
  EDGEADMM_TRY(
      Phase("shares_instructions", "shares_pool_high_water", ShareKeys));
  EDGEADMM_TRY(
      Phase("mask_instructions", "mask_pool_high_water", MaskedInputPhase));
  EDGEADMM_TRY(Phase("reveal_instructions", "reveal_pool_high_water", Reveal));
  return Status::Ok();
}

}  // namespace
}  // namespace edgeadmm

int main() {
  edgeadmm::instruction_timer::Start();
  const uint64_t measured =
      edgeadmm::instruction_timer::MeasureCalibrationLoop();
  edgeadmm::PrintCount("calibration_loop_instructions",
                       edgeadmm::instruction_timer::kCalibrationInstructions);
  edgeadmm::PrintCount("calibration_measured", measured);
  const edgeadmm::Status status = edgeadmm::Run();
  if (!status.ok()) {
    edgeadmm::board::ConsoleWrite("error ");
    edgeadmm::board::ConsoleWrite(status.str());
    edgeadmm::board::ConsoleWrite("\n");
    return 1;
  }
  edgeadmm::board::ConsoleWrite("done\n");
  return 0;
}
