// Benchmark firmware (not a timed test): instructions per networked round of
// the reference shard (logistic, p = 123, the example's 256 a9a records in
// flash) against the real daemon, split into the step and the
// communication. Started by run_with_daemon.py --dimension 123 (a
// one-device prox-admm job of 5 rounds), "<image> <port> <identity>
// <psk-hex> <job-id>" on the semihosting command line, under QEMU with
// `-icount shift=0` (examples/cortex_m4/instruction_timer.h).
//
// The loop busy-polls the LAN9118 while it waits for the daemon, so the
// instructions of a whole run depend on when datagrams arrive in host time.
// Counted instead: the DeviceClient::Poll and CoapClient::Poll calls that did
// something (a datagram sent, one received with data, a change of the
// device's counters or state), less their empty polls of the link, outside
// the link's Wait (where lwIP takes frames off the driver), split by
// metered links:
//   dtls   DtlsPskLink::Send/Receive minus the UDP link below (Mbed TLS's
//          record layer and CCM-8),
//   udp    lwIP's UDP send + the LAN9118 transmit, and the dequeue of a
//          received datagram,
//   step   the DeviceClient::Poll call that computed the local step (with
//          the ledger, the Update encoding and its persisting) minus the
//          links,
//   coap   the rest of the active calls (CoAP client, task decoding,
//          receipts, Observe).
// The handshake (GET v1/status before the job) is counted on its own.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "daemon_session.h"
#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/board/ethernet.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_memory_pool.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/lwip/network.h"
#include "edgeadmm/lwip/udp_link.h"
#include "instruction_timer.h"
#include "reference_job.h"

namespace edgeadmm {
namespace {

using instruction_timer::Instructions;
using instruction_timer::Ticks;
using reference_job::kDim;
using reference_job::kSamples;

void Print(const char* key, uint64_t value) {
  char text[96];
  baremetal::Format(text, sizeof(text), "%s %llu\n", key,
                    static_cast<unsigned long long>(value));
  board::ConsoleWrite(text);
}

// Instructions spent in one kind of call.
struct Meter {
  uint64_t instructions = 0;
  uint32_t calls = 0;
};

// A link that counts the instructions of its sends and of the receives that
// return a datagram (empty polls go to `idle`). Wait is not counted.
class MeteredLink final : public coap::DatagramLink {
 public:
  explicit MeteredLink(coap::DatagramLink& inner) : inner_(&inner) {}
  Status Send(ConstByteSpan datagram) override {
    const uint32_t t0 = Ticks();
    const Status status = inner_->Send(datagram);
    Add(send, t0);
    return status;
  }
  StatusWithSize Receive(ByteSpan buffer) override {
    const uint32_t t0 = Ticks();
    const StatusWithSize got = inner_->Receive(buffer);
    Add(got.ok() && got.size() > 0 ? receive : idle, t0);
    return got;
  }
  void Wait(uint32_t timeout_ms) override { inner_->Wait(timeout_ms); }

  Meter send;
  Meter receive;
  Meter idle;

 private:
  static void Add(Meter& meter, uint32_t t0) {
    meter.instructions += Instructions(t0, Ticks());
    ++meter.calls;
  }
  coap::DatagramLink* inner_;
};

lwip::UdpLink udp;
MeteredLink metered_udp(udp);
alignas(Drbg) std::byte drbg_memory[sizeof(Drbg)];
alignas(dtls::DtlsPskLink) std::byte dtls_memory[sizeof(dtls::DtlsPskLink)];
alignas(coap::CoapClient) std::byte client_memory[sizeof(coap::CoapClient)];
std::byte tx[1200];
std::byte rx[1200];
std::byte body[2048];

alignas(16) std::byte trainer_bytes[LocalStepWorkspaceBytes(
    AlgorithmKind::kProxAdmm, LossKind::kLogistic, kSamples, kDim)];
alignas(16) std::byte scratch[DeviceClient::ComputeScratchBytes(kDim)];
alignas(16) std::byte client_bytes[DeviceClient::MemoryBytes(kDim)];
alignas(16) std::byte
    storage_bytes[MemoryStorage::kMaxKeys * DeviceClient::RecordBytes(kDim)];
alignas(MemoryStorage) std::byte storage_memory[sizeof(MemoryStorage)];
alignas(LocalTrainer) std::byte trainer_memory[sizeof(LocalTrainer)];
alignas(DeviceClient) std::byte device_memory[sizeof(DeviceClient)];

uint64_t Sum(const MeteredLink& link) {
  return link.send.instructions + link.receive.instructions;
}

Status Run() {
  daemon_session::Arguments options;
  daemon_session::ParseCommandLine(options, [](const char*) {});
  if (options.port == 0 || options.key_size == 0)
    return Status::InvalidArgument();
  EDGEADMM_TRY(daemon_session::StartNetwork());
  EDGEADMM_TRY(udp.Open(daemon_session::kHost, options.port));
  dtls::StartDtlsMemoryPool();
  auto* drbg = new (drbg_memory) Drbg();
  EDGEADMM_TRY(daemon_session::InitDrbg(*drbg, "mcu-round-benchmark"));
  auto* secure = new (dtls_memory) dtls::DtlsPskLink(
      daemon_session::DtlsConfig(options, &metered_udp, drbg));
  static MeteredLink metered_secure(*secure);
  const coap::CoapClientConfig c = daemon_session::CoapConfig(
      &metered_secure, ByteSpan(tx, sizeof(tx)), ByteSpan(rx, sizeof(rx)));
  auto* client = new (client_memory) coap::CoapClient(c);

  // The session: handshake + GET v1/status, counted whole (its waits too:
  // a rough figure, not deterministic).
  const uint32_t h0 = Ticks();
  TransportRequest request;
  request.path = "v1/status";
  TransportResult result;
  client->Request(request, ByteSpan(body, sizeof(body)), 30000, result)
      .IgnoreError();
  EDGEADMM_TRY(result.status);
  Print("session_handshake_and_status_with_waits", Instructions(h0, Ticks()));
  metered_secure.send = metered_secure.receive = metered_secure.idle = Meter();
  metered_udp.send = metered_udp.receive = metered_udp.idle = Meter();

  EDGEADMM_TRY_ASSIGN(const DatasetView data, reference_job::Shard());
  auto* trainer = new (trainer_memory) LocalTrainer();
  auto* device = new (device_memory) DeviceClient();
  DeviceClientConfig config;
  config.device_id = options.identity;
  config.transport = client;
  config.storage = new (storage_memory)
      MemoryStorage(ByteSpan(storage_bytes, sizeof(storage_bytes)));
  config.entropy = &board::Entropy();  // UNSAFE seeded entropy (fixed seed)
  config.data = data;
  config.trainer = trainer;
  config.trainer_workspace = ByteSpan(trainer_bytes, sizeof(trainer_bytes));
  config.compute_scratch = ByteSpan(scratch, sizeof(scratch));
  config.epsilon_budget = 1e6;
  config.task_refresh_ms = 2000;
  EDGEADMM_TRY(
      device->Init(config, ByteSpan(client_bytes, sizeof(client_bytes))));

  // A Poll call counts if it did something: a datagram sent or one
  // received with data inside it, or (DeviceClient) a change of its
  // counters or state. Its empty polls of the link are waiting, not work.
  uint64_t active = 0;           // instructions of the active calls
  uint64_t step_calls = 0;       // the Poll calls that computed a step
  uint64_t step_call_links = 0;  // link instructions inside those
  uint32_t active_calls = 0;
  uint32_t idle_calls = 0;
  const auto events = [&] {
    return metered_secure.send.calls + metered_secure.receive.calls +
           metered_udp.send.calls + metered_udp.receive.calls;
  };
  // The UDP link's empty polls are nested in the DTLS link's.
  const auto waiting = [&] { return metered_secure.idle.instructions; };
  const uint64_t start = board::NowMs();
  while (device->state() != ClientState::kDone &&
         board::NowMs() - start < 120000) {
    const DeviceClientCounters before = device->counters();
    const ClientState state_before = device->state();
    uint32_t events_before = events();
    uint64_t waiting_before = waiting();
    const uint64_t links_before = Sum(metered_secure);
    uint32_t t0 = Ticks();
    device->Poll(board::NowMs()).IgnoreError();
    uint64_t work = Instructions(t0, Ticks()) - (waiting() - waiting_before);
    const bool stepped =
        device->counters().steps_computed != before.steps_computed;
    if (events() != events_before || device->state() != state_before ||
        std::memcmp(&before, &device->counters(), sizeof(before)) != 0) {
      ++active_calls;
      active += work;
      if (stepped) {
        step_calls += work;
        step_call_links += Sum(metered_secure) - links_before;
      }
    } else {
      ++idle_calls;
    }
    events_before = events();
    waiting_before = waiting();
    t0 = Ticks();
    client->Poll(0).status().IgnoreError();
    work = Instructions(t0, Ticks()) - (waiting() - waiting_before);
    if (events() != events_before) {
      ++active_calls;
      active += work;
    } else {
      ++idle_calls;
    }
    metered_secure.Wait(10);
  }
  const DeviceClientCounters& counters = device->counters();
  if (device->state() != ClientState::kDone || counters.steps_computed == 0)
    return Status::DeadlineExceeded();
  const uint64_t rounds = counters.steps_computed;
  const uint64_t lower = Sum(metered_udp);
  const uint64_t dtls = Sum(metered_secure) - lower;
  const uint64_t step = step_calls - step_call_links;
  const uint64_t coap = active - Sum(metered_secure) - step;
  Print("rounds", rounds);
  Print("uploads_accepted", counters.uploads_accepted);
  Print("coap_retransmissions", client->retransmissions());
  Print("active_poll_calls", active_calls);
  Print("idle_poll_calls", idle_calls);
  Print("datagrams_sent", metered_udp.send.calls);
  Print("datagrams_received", metered_udp.receive.calls);
  Print("per_round_step", step / rounds);
  Print("per_round_dtls_records", dtls / rounds);
  Print("per_round_udp_lwip_driver", lower / rounds);
  Print("per_round_coap_client", coap / rounds);
  Print("per_round_communication", (dtls + lower + coap) / rounds);
  Print("per_round_total", active / rounds);
  return Status::Ok();
}

}  // namespace
}  // namespace edgeadmm

int main() {
  edgeadmm::instruction_timer::Start();
  const edgeadmm::Status status = edgeadmm::Run();
  if (!status.ok()) {
    edgeadmm::board::ConsoleWrite("round benchmark error ");
    edgeadmm::board::ConsoleWrite(status.str());
    edgeadmm::board::ConsoleWrite("\n");
    return 1;
  }
  edgeadmm::board::ConsoleWrite("round benchmark done\n");
  return 0;
}
