// Benchmark firmware (not a timed test): instructions per private ADMM local
// step of the reference job (logistic, p = 123, 256 a9a records in flash,
// the example's parameters) on the MPS2-AN386 board under QEMU.
//
// Method: run_step_benchmark.py starts QEMU with `-icount shift=0`, so the
// virtual clock advances exactly 1 ns per executed guest instruction and
// never with host time (the firmware polls no device and waits for nothing).
// The board's CMSDK APB timer 0 counts that virtual clock at its 25 MHz PCLK,
// so one timer tick = 40 instructions: counts are instructions, exact to
// ±40, and the same on every run. QEMU does not model the DWT cycle counter
// (DWT_CTRL.NOCYCCNT is reported below), nor pipeline stalls or flash wait
// states: on silicon an instruction takes ≥ 1 cycle, so cycles ≥ the
// instructions printed here.
//
// The step is measured twice: ProxAdmmStep::Run as the SDK runs it (the
// total), and a replica of its body with a timer read between the phases
// (prox solve, clip, noise + state update), checked bit for bit against the
// SDK's Δu and u. The ledger charge, the ε query and the nanopb encoding of
// the upload complete the device's compute of one round.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/clip.h"
#include "edgeadmm/coap/coap_message.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_memory_pool.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/prox_admm_step.h"
#include "edgeadmm/prox_solver.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/update.h"
#include "edgeadmm/workspace.h"
#include "instruction_timer.h"
#include "mbedtls/ccm.h"
#include "reference_job.h"

namespace edgeadmm {
namespace {

using reference_job::kDelta;
using reference_job::kDim;
using reference_job::kSamples;
using reference_job::kSeed;
constexpr int kSteps = 5;

// Debug registers: DEMCR.TRCENA enables the DWT; DWT_CTRL.NOCYCCNT (bit 25)
// says there is no cycle counter, CYCCNTENA (bit 0) starts it.
constexpr uintptr_t kDemcr = 0xE000EDFCu;
constexpr uintptr_t kDwtCtrl = 0xE0001000u;
constexpr uintptr_t kDwtCyccnt = 0xE0001004u;

using instruction_timer::Instructions;
using instruction_timer::Reg;
using instruction_timer::Ticks;

void Print(const char* line) { board::ConsoleWrite(line); }

void PrintCount(const char* key, uint64_t value) {
  char line[96];
  baremetal::Format(line, sizeof(line), "%s %llu\n", key,
                    static_cast<unsigned long long>(value));
  Print(line);
}

void PrintStepCount(int step, const char* part, uint64_t value) {
  char key[48];
  baremetal::Format(key, sizeof(key), "step_%d_%s", step, part);
  PrintCount(key, value);
}

// The DWT as the model presents it (QEMU 7.2: NOCYCCNT set, CYCCNT reads 0).
void ProbeCycleCounter() {
  Reg(kDemcr) = Reg(kDemcr) | (1u << 24);
  Reg(kDwtCtrl) = Reg(kDwtCtrl) | 1u;
  const uint32_t before = Reg(kDwtCyccnt);
  for (volatile int i = 0; i < 1000; i = i + 1) {
  }
  const uint32_t after = Reg(kDwtCyccnt);
  PrintCount("dwt_nocyccnt", (Reg(kDwtCtrl) >> 25) & 1u);
  PrintCount("dwt_cyccnt_delta", after - before);
}

// The calibration loop (instruction_timer.h): run_step_benchmark.py fails
// unless the two counts agree.
void Calibrate() {
  const uint64_t measured = instruction_timer::MeasureCalibrationLoop();
  PrintCount("calibration_loop_instructions",
             instruction_timer::kCalibrationInstructions);
  PrintCount("calibration_measured", measured);
}

alignas(Workspace::kAlignment) std::byte
    step_memory[ProxAdmmStep::WorkspaceBytes(LossKind::kLogistic, kSamples,
                                             kDim)];
alignas(Workspace::kAlignment) std::byte
    solver_memory[ProxSolver::WorkspaceBytes(
                      LossKind::kLogistic, ProxMethod::kAuto, kSamples, kDim) +
                  Workspace::Bytes<Real>(kDim)];
Real z[kDim];
Real u_sdk[kDim];
Real delta_sdk[kDim];
Real u_rep[kDim];
Real delta_rep[kDim];
std::byte upload[128 + 4 * kDim];

// The body of ProxAdmmStep::Run (sdk/src/steps/prox_admm_step.cc) with a
// timer read between its phases.
struct Phases {
  uint64_t prox = 0;   // v = 2z − u, then x = prox_{s f}(v)
  uint64_t clip = 0;   // Δ = x − z, ClipL2, scale by 2λ
  uint64_t noise = 0;  // Gaussian noise on Δu, u += Δu
  int iterations = 0;
};

Result<Phases> ReplicaStep(ProxSolver& solver, Span<Real> x,
                           const ProxAdmmParams& params,
                           DiscreteGaussianSampler& noise, Span<Real> u,
                           Span<Real> delta_u) {
  Phases phases;
  Real* d = delta_u.data();
  const uint32_t t0 = Ticks();
  for (size_t i = 0; i < kDim; ++i) d[i] = 2 * z[i] - u[i];
  EDGEADMM_TRY_ASSIGN(const ProxReport prox,
                      solver.Solve(delta_u, params.step, x));
  const uint32_t t1 = Ticks();
  for (size_t i = 0; i < kDim; ++i) d[i] = x[i] - z[i];
  ClipL2(delta_u, params.clip);
  for (size_t i = 0; i < kDim; ++i) d[i] *= 2 * params.lambda;
  const uint32_t t2 = Ticks();
  EDGEADMM_TRY(
      AddGridNoise(noise, params.UpdateBound(), params.NoiseStd(), delta_u));
  for (size_t i = 0; i < kDim; ++i) u[i] += d[i];
  const uint32_t t3 = Ticks();
  phases.prox = Instructions(t0, t1);
  phases.clip = Instructions(t1, t2);
  phases.noise = Instructions(t2, t3);
  phases.iterations = prox.iterations;
  return phases;
}

// The compute of a round's messages without the network: the task
// notification (CoAP parse, nanopb decode of z) and the upload (CoAP POST
// build), each datagram protected as a DTLS 1.2 record of the
// TLS_PSK_WITH_AES_128_CCM_8 suite (Mbed TLS's CCM with the record's
// 12-byte nonce, 13-byte additional data and 8-byte tag). Not counted: the
// record layer's header handling, lwIP, the LAN9118 driver, the waits, the
// small receipt and ACK records, the handshake (once per session).
struct Communication {
  uint64_t task_decrypt = 0;
  uint64_t task_parse = 0;    // CoAP message + nanopb RoundTask
  uint64_t upload_build = 0;  // CoAP POST around the encoded Update
  uint64_t upload_encrypt = 0;
  size_t task_datagram = 0;
  size_t upload_datagram = 0;
};

constexpr size_t kTag = 8;
std::byte task_body[wire::MaxRoundTaskBytes(kDim)];
uint8_t task_plain[64 + sizeof(task_body)];
uint8_t task_record[sizeof(task_plain) + kTag];
uint8_t upload_plain[64 + sizeof(upload)];
uint8_t upload_record[sizeof(upload_plain) + kTag];
Real task_model[kDim];
mbedtls_ccm_context ccm;

ByteSpan Bytes(uint8_t* bytes, size_t size) {
  return ByteSpan(reinterpret_cast<std::byte*>(bytes), size);
}

void RecordNonceAndData(uint64_t sequence, size_t size, uint8_t nonce[12],
                        uint8_t aad[13]) {
  std::memset(nonce, 0x5a, 4);  // the implicit IV (client_write_IV)
  for (int i = 0; i < 8; ++i) {
    nonce[4 + i] = aad[i] = static_cast<uint8_t>(sequence >> (56 - 8 * i));
  }
  aad[8] = 23;  // application_data
  aad[9] = 0xfe;
  aad[10] = 0xfd;  // DTLS 1.2
  aad[11] = static_cast<uint8_t>(size >> 8);
  aad[12] = static_cast<uint8_t>(size);
}

Status StartCommunication() {
  dtls::StartDtlsMemoryPool();  // Mbed TLS's allocator, as in the firmware
  mbedtls_ccm_init(&ccm);
  uint8_t key[16];
  for (int i = 0; i < 16; ++i) key[i] = static_cast<uint8_t>(i * 17);
  const int rc = mbedtls_ccm_setkey(&ccm, MBEDTLS_CIPHER_ID_AES, key, 128);
  if (rc != 0) {
    PrintCount("ccm_setkey_error", static_cast<uint64_t>(-rc));
    return Status::Internal();
  }
  return Status::Ok();
}

// The daemon's side, not counted: the task for round k as a CON Observe
// notification, encrypted into task_record.
Result<size_t> PrepareTask(int k) {
  edgeadmm_wire_RoundTask t = edgeadmm_wire_RoundTask_init_zero;
  t.job_id = 1;
  t.round_id = static_cast<uint64_t>(k);
  t.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
  t.loss = edgeadmm_wire_Loss_LOSS_LOGISTIC;
  t.noise_placement = edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE;
  t.dimension = kDim;
  t.deadline_ms = 60000;
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM;
  t.which_params = edgeadmm_wire_RoundTask_federated_tag;
  t.params.federated = {0.5, 1.0, 1.0, 4.0, false};
  const StatusWithSize body = wire::EncodeRoundTask(
      t, Span<const Real>(z, kDim), {}, ByteSpan(task_body, sizeof(task_body)));
  EDGEADMM_TRY(body.status());
  coap::MessageWriter w(Bytes(task_plain, sizeof(task_plain)));
  const uint8_t token[4] = {1, 2, 3, 4};
  w.Begin(coap::MessageType::kConfirmable, 69 /* 2.05 */,
          static_cast<uint16_t>(100 + k),
          ConstByteSpan(reinterpret_cast<const std::byte*>(token), 4));
  w.AddUintOption(coap::kOptionObserve, static_cast<uint32_t>(k + 2));
  w.AddUintOption(coap::kOptionContentFormat, wire::kRoundTaskFormat);
  w.SetPayload(ConstByteSpan(task_body, body.size()));
  const StatusWithSize plain = w.Finish();
  EDGEADMM_TRY(plain.status());
  uint8_t nonce[12];
  uint8_t aad[13];
  RecordNonceAndData(static_cast<uint64_t>(2 * k + 1), plain.size(), nonce,
                     aad);
  if (mbedtls_ccm_encrypt_and_tag(&ccm, plain.size(), nonce, 12, aad, 13,
                                  task_plain, task_record,
                                  task_record + plain.size(), kTag) != 0)
    return Status::Internal();
  return plain.size();
}

// The device's side of round k's two large messages, counted.
Result<Communication> DeviceCommunication(int k, size_t task_size,
                                          ConstByteSpan update) {
  Communication c;
  c.task_datagram = task_size;
  uint8_t nonce[12];
  uint8_t aad[13];
  const uint32_t t0 = Ticks();
  RecordNonceAndData(static_cast<uint64_t>(2 * k + 1), task_size, nonce, aad);
  if (mbedtls_ccm_auth_decrypt(&ccm, task_size, nonce, 12, aad, 13, task_record,
                               task_plain, task_record + task_size, kTag) != 0)
    return Status::DataLoss();
  const uint32_t t1 = Ticks();
  coap::MessageView message;
  EDGEADMM_TRY(coap::ParseMessage(
      ConstByteSpan(reinterpret_cast<const std::byte*>(task_plain), task_size),
      message));
  uint32_t observe = 0;
  EDGEADMM_TRY(coap::FindUintOption(message, coap::kOptionObserve, observe));
  wire::DecodedRoundTask task;
  EDGEADMM_TRY(wire::DecodeRoundTask(message.payload,
                                     Span<Real>(task_model, kDim), {}, task));
  const uint32_t t2 = Ticks();
  coap::MessageWriter w(Bytes(upload_plain, sizeof(upload_plain)));
  const uint8_t token[4] = {9, 8, 7, static_cast<uint8_t>(k)};
  w.Begin(coap::MessageType::kConfirmable, 2 /* POST */,
          static_cast<uint16_t>(200 + k),
          ConstByteSpan(reinterpret_cast<const std::byte*>(token), 4));
  w.AddOption(coap::kOptionUriPath,
              ConstByteSpan(reinterpret_cast<const std::byte*>("v1"), 2));
  w.AddOption(coap::kOptionUriPath,
              ConstByteSpan(reinterpret_cast<const std::byte*>("update"), 6));
  w.AddUintOption(coap::kOptionContentFormat, wire::kUpdateFormat);
  w.SetPayload(update);
  const StatusWithSize plain = w.Finish();
  EDGEADMM_TRY(plain.status());
  const uint32_t t3 = Ticks();
  RecordNonceAndData(static_cast<uint64_t>(2 * k + 2), plain.size(), nonce,
                     aad);
  if (mbedtls_ccm_encrypt_and_tag(&ccm, plain.size(), nonce, 12, aad, 13,
                                  upload_plain, upload_record,
                                  upload_record + plain.size(), kTag) != 0)
    return Status::Internal();
  const uint32_t t4 = Ticks();
  c.task_decrypt = Instructions(t0, t1);
  c.task_parse = Instructions(t1, t2);
  c.upload_build = Instructions(t2, t3);
  c.upload_encrypt = Instructions(t3, t4);
  c.upload_datagram = plain.size();
  return c;
}

[[gnu::noinline]] Status Run() {
  const ConstByteSpan personalization = reference_job::Personalization();
  EDGEADMM_TRY_ASSIGN(const DatasetView data, reference_job::Shard());
  const Loss loss;  // logistic
  Workspace step_ws(ByteSpan(step_memory, sizeof(step_memory)));
  ProxAdmmStep step;
  EDGEADMM_TRY(step.InitFor<LossKind::kLogistic>(step_ws, data, loss));
  Workspace solver_ws(ByteSpan(solver_memory, sizeof(solver_memory)));
  ProxSolver solver;
  EDGEADMM_TRY(solver.InitFor<LossKind::kLogistic>(solver_ws, data, loss));
  EDGEADMM_TRY_ASSIGN(const Span<Real> x, solver_ws.Allocate<Real>(kDim));
  for (size_t i = 0; i < kDim; ++i) x[i] = 0;

  TestEntropy entropy_sdk(kSeed);
  Drbg drbg_sdk;
  EDGEADMM_TRY(drbg_sdk.Init(entropy_sdk, personalization));
  DiscreteGaussianSampler noise_sdk(drbg_sdk);
  TestEntropy entropy_rep(kSeed);
  Drbg drbg_rep;
  EDGEADMM_TRY(drbg_rep.Init(entropy_rep, personalization));
  DiscreteGaussianSampler noise_rep(drbg_rep);
  DevicePrivacyLedger ledger;

  const ProxAdmmParams params = reference_job::Params();  // noise in state
  reference_job::FillGlobalModel(z);

  EDGEADMM_TRY(StartCommunication());
  uint64_t sum_step = 0;
  uint64_t sum_round = 0;
  uint64_t sum_communication = 0;
  bool replica_matches = true;
  for (int k = 0; k < kSteps; ++k) {
    EDGEADMM_TRY_ASSIGN(const size_t task_size, PrepareTask(k));
    // The SDK's step, as a device runs it.
    const uint32_t t0 = Ticks();
    EDGEADMM_TRY_ASSIGN(
        const ProxAdmmReport report,
        step.Run(params, Span<const Real>(z, kDim), Span<Real>(u_sdk, kDim),
                 noise_sdk, Span<Real>(delta_sdk, kDim)));
    const uint32_t t1 = Ticks();
    EDGEADMM_TRY(
        ledger.Charge(params.ReplaceOneSensitivity(kDim), params.NoiseStd()));
    const uint32_t t2 = Ticks();
    EDGEADMM_TRY_ASSIGN(const double epsilon, ledger.Epsilon(kDelta));
    const uint32_t t3 = Ticks();
    const edgeadmm_wire_Update header =
        reference_job::UploadHeader(static_cast<uint64_t>(k), ledger, epsilon);
    const StatusWithSize encoded =
        wire::EncodeUpdate(header, Span<const Real>(delta_sdk, kDim),
                           ByteSpan(upload, sizeof(upload)));
    EDGEADMM_TRY(encoded.status());
    const uint32_t t4 = Ticks();
    EDGEADMM_TRY_ASSIGN(
        const Communication c,
        DeviceCommunication(k, task_size,
                            ConstByteSpan(upload, encoded.size())));

    // The replica with its phases, on its own state and DRBG.
    EDGEADMM_TRY_ASSIGN(
        const Phases phases,
        ReplicaStep(solver, x, params, noise_rep, Span<Real>(u_rep, kDim),
                    Span<Real>(delta_rep, kDim)));
    replica_matches = replica_matches &&
                      std::memcmp(u_rep, u_sdk, sizeof(u_sdk)) == 0 &&
                      std::memcmp(delta_rep, delta_sdk, sizeof(delta_sdk)) == 0;

    const uint64_t step_count = Instructions(t0, t1);
    const uint64_t round_count = Instructions(t0, t4);
    sum_step += step_count;
    sum_round += round_count;
    PrintStepCount(k, "newton_iterations",
                   static_cast<uint64_t>(report.prox.iterations));
    PrintStepCount(k, "step", step_count);
    PrintStepCount(k, "step_prox", phases.prox);
    PrintStepCount(k, "step_clip", phases.clip);
    PrintStepCount(k, "step_noise", phases.noise);
    PrintStepCount(k, "ledger_charge", Instructions(t1, t2));
    PrintStepCount(k, "ledger_epsilon", Instructions(t2, t3));
    PrintStepCount(k, "encode_upload", Instructions(t3, t4));
    PrintStepCount(k, "round_compute", round_count);
    PrintStepCount(k, "task_datagram_bytes", c.task_datagram);
    PrintStepCount(k, "task_record_decrypt", c.task_decrypt);
    PrintStepCount(k, "task_coap_parse_decode", c.task_parse);
    PrintStepCount(k, "upload_datagram_bytes", c.upload_datagram);
    PrintStepCount(k, "upload_coap_build", c.upload_build);
    PrintStepCount(k, "upload_record_encrypt", c.upload_encrypt);
    const uint64_t communication =
        c.task_decrypt + c.task_parse + c.upload_build + c.upload_encrypt;
    PrintStepCount(k, "communication", communication);
    PrintStepCount(k, "round_total", round_count + communication);
    sum_communication += communication;
  }
  PrintCount("replica_matches_sdk", replica_matches ? 1 : 0);
  PrintCount("mean_step", sum_step / kSteps);
  PrintCount("mean_round_compute", sum_round / kSteps);
  PrintCount("mean_communication", sum_communication / kSteps);
  PrintCount("mean_round_total", (sum_round + sum_communication) / kSteps);
  return replica_matches ? Status::Ok() : Status::Internal();
}

}  // namespace
}  // namespace edgeadmm

int main() {
  edgeadmm::instruction_timer::Start();
  edgeadmm::ProbeCycleCounter();
  edgeadmm::Calibrate();
  const edgeadmm::Status status = edgeadmm::Run();
  if (!status.ok()) {
    edgeadmm::Print("error ");
    edgeadmm::Print(status.str());
    edgeadmm::Print("\n");
    return 1;
  }
  edgeadmm::Print("done\n");
  return 0;
}
