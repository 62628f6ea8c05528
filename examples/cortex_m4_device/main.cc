// Reference firmware of a device in a private federated job (Cortex-M4F;
// any board of platform/boards, through the board interface only): the
// pieces a product wires, in the order it wires them, with nothing on the
// heap.
//   1. identity, PSK and network settings from the board's provisioning
//      record (provisioning.h; make_provisioning_blob.py writes it): refused
//      unless its CRC-32 and fields check;
//   2. the persistent state in the board's flash (board::PersistentStorage,
//      a FlashStorage): a reboot resumes where the device stopped;
//   3. lwIP on the board's Ethernet MAC with the provisioned static IPv4
//      address, or DHCP (both work under QEMU user networking: slirp hands
//      out 10.0.2.15);
//   4. DTLS-PSK (Mbed TLS, static pool) to the aggregator, CoAP on top;
//      with further gateways in the record, the device moves to the next
//      when the one in use stops serving (FailoverTransport, one DTLS
//      session in RAM);
//   5. one StaticDeviceClient (client, trainer, buffers: one object sized
//      by the job's shape) joins the running job, trains every round it is
//      given and uploads; progress and the outcome go to the board's
//      console. Exit status 0 once the job is done. The _secure image
//      (EDGEADMM_SECURE_NEIGHBOURS) also joins secure-aggregation
//      rounds; their keys and phase state persist in the same flash. The
//      _secure_cut image is _secure with a power-cut test hook (CutInRound).
// On the QEMU boards, QEMU's working directory holds the flash model's
// files (provision.bin and the state file their config names).
//
// ENTROPY: DeviceEntropy() below is the TRNG hook. On the QEMU boards it is
// a SeededEntropy with a FIXED SEED (the emulated board has no TRNG):
// UNSAFE FOR PRODUCTION, every DTLS random and every noise value is
// predictable. A product's board returns its hardware TRNG there.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/baremetal/stack.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/board/ethernet.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_memory_pool.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/failover_transport.h"
#include "edgeadmm/lwip/network.h"
#include "edgeadmm/lwip/udp_link.h"
#include "edgeadmm/static_device_client.h"
#include "provisioning.h"

namespace edgeadmm::device_example {
namespace {

// The shape of the jobs this firmware runs: a logistic prox-ADMM model of 3
// coordinates (paper 002 Alg. 3) on at most 8 local records, 1 KiB CoAP
// blocks. A job of another shape is refused and reported.
using PlainShape = DeviceShape<3, 8, AlgorithmBit(AlgorithmKind::kProxAdmm),
                               LossBit(LossKind::kLogistic), 1024>;
#ifdef EDGEADMM_SECURE_NEIGHBOURS
// Secure-aggregation rounds of at most k neighbours (of any size).
using Shape = WithSecureRounds<PlainShape, EDGEADMM_SECURE_NEIGHBOURS>;
#else
using Shape = PlainShape;
#endif
// The device's local records (a product reads its sensors or its flash).
constexpr size_t kSamples = 4;
const Real kFeatures[kSamples * Shape::kDimension] = {
    ToReal(1.0), ToReal(0.5),  ToReal(-0.2), ToReal(-0.3),
    ToReal(1.0), ToReal(0.4),  ToReal(0.8),  ToReal(-1.0),
    ToReal(0.1), ToReal(-0.6), ToReal(0.2),  ToReal(1.0)};
const Real kLabels[kSamples] = {1, -1, 1, -1};
// The device's own privacy budget per job (ε at δ = 1e-5): the client
// refuses any round beyond it whatever the aggregator asks.
constexpr double kEpsilonBudget = 1e6;  // the test job's; a product's is small
constexpr uint32_t kJobTimeoutMs = 120000;

// TRNG HOOK: the entropy that seeds the DTLS DRBG and the noise DRBG.
// UNSAFE on this board (see the file comment): replace with the TRNG.
EntropySource& DeviceEntropy() { return board::Entropy(); }

void Print(const char* format, unsigned a = 0, unsigned b = 0, unsigned c = 0,
           unsigned d = 0) {
  char text[160];
  baremetal::Format(text, sizeof(text), format, a, b, c, d);
  board::ConsoleWrite(text);
}

void Write(const char* text) { board::ConsoleWrite(text); }

uint64_t NowMs() { return board::NowMs(); }

Provisioning provisioned;
StaticDeviceClient<Shape> device;
lwip::UdpLink udp;
Drbg drbg;
alignas(dtls::DtlsPskLink) std::byte dtls_memory[sizeof(dtls::DtlsPskLink)];
alignas(coap::CoapClient) std::byte coap_memory[sizeof(coap::CoapClient)];
// With further gateways in the blob: a FailoverTransport over the one CoAP
// client (RAM for one DTLS session), whose move hook points the UDP link at
// the gateway moved to.
Transport* gateway_transports[kMaxGateways];
alignas(FailoverTransport) std::byte failover_memory[sizeof(FailoverTransport)];

Status LoadProvisioning() {
  std::byte blob[kBlobBytes];
  EDGEADMM_TRY(board::ReadProvisioning(ByteSpan(blob, sizeof(blob))));
  return ParseProvisioning(ConstByteSpan(blob, sizeof(blob)), provisioned);
}

Status StartNetwork() {
  baremetal::EthernetMac* mac = board::Ethernet();
  if (mac == nullptr) return Status::Unavailable();
  lwip::NetworkConfig n;
  n.mac = mac;
  n.now_ms = &NowMs;
  n.dhcp = provisioned.dhcp;
  std::memcpy(n.address, provisioned.address, 4);
  std::memcpy(n.netmask, provisioned.netmask, 4);
  std::memcpy(n.gateway, provisioned.gateway, 4);
  EDGEADMM_TRY(lwip::StartNetwork(n));
  EDGEADMM_TRY(lwip::WaitNetworkReady(10000));
  uint8_t a[4];
  lwip::NetworkAddress(a);
  Write(provisioned.dhcp ? "network up (DHCP): " : "network up (static): ");
  Print("%u.%u.%u.%u\n", a[0], a[1], a[2], a[3]);
  return Status::Ok();
}

void PointAtGateway(void* /*context*/, size_t index) {
  const GatewayEndpoint& g = provisioned.gateways[index];
  // A failed Open leaves the link closed: the next exchange fails
  // (UNAVAILABLE) and the transport moves on again.
  const Status s = udp.Open(g.address, g.port);
  Print("moved to gateway %u: %u.%u.", static_cast<unsigned>(index),
        g.address[0], g.address[1]);
  Print("%u.%u port %u (status %u)\n", g.address[2], g.address[3], g.port,
        static_cast<unsigned>(s.code()));
}

// The transport the client speaks through: the CoAP client itself, or the
// failover over it when the blob names further gateways.
Transport* GatewayTransport(coap::CoapClient* coap) {
  if (provisioned.gateway_count == 1) return coap;
  for (size_t i = 0; i < provisioned.gateway_count; ++i) {
    gateway_transports[i] = coap;
  }
  FailoverMoveHook hook;
  hook.fn = &PointAtGateway;
  return new (failover_memory)
      FailoverTransport(gateway_transports, provisioned.gateway_count, 0, hook);
}

// Test hook of the _secure_cut image only (EDGEADMM_CUT_IN_ROUND_HOOK; the
// measured _secure image has none): with "cut-in-round" on the board's
// command line the firmware ends, as at a power cut, once its secure round
// has reached phase 2 (keys and shares sent, that phase's blob in flash);
// mcu_secure_mixed_job_test_reboot boots it again on the same flash.
bool CutInRound(const DeviceClient& client) {
#ifdef EDGEADMM_CUT_IN_ROUND_HOOK
  static int cut = -1;  // -1: the command line not read yet
  if (cut < 0) {
    static const char kWord[] = "cut-in-round";
    char line[256] = {};
    cut = 0;
    if (board::CommandLine(line, sizeof(line))) {
      for (const char* p = line; *p != '\0' && cut == 0; ++p) {
        size_t i = 0;
        while (kWord[i] != '\0' && p[i] == kWord[i]) ++i;
        cut = kWord[i] == '\0' ? 1 : 0;
      }
    }
  }
  return cut == 1 && client.secure_round_phase() >= 2;
#else
  static_cast<void>(client);
  return false;
#endif
}

int Fail(const char* what, Status status) {
  Write("FAILED: ");
  Write(what);
  Print(" (status %u)\n", static_cast<unsigned>(status.code()));
  return 1;
}

int Run() {
  Print("edgeadmm reference device: arena %u bytes, client object %u bytes\n",
        static_cast<unsigned>(StaticDeviceClient<Shape>::kArenaBytes),
        static_cast<unsigned>(sizeof(device)));
  if constexpr (StaticDeviceClient<Shape>::kSecure) {
    Print("secure rounds: k %u, %u arena bytes\n",
          static_cast<unsigned>(Shape::kSecAggNeighbours),
          static_cast<unsigned>(StaticDeviceClient<Shape>::kSecureRoundBytes));
  }
  Print(
      "WARNING: test entropy with a fixed seed (no TRNG on this board): "
      "UNSAFE for production\n");
  Status s = LoadProvisioning();
  if (!s.ok()) return Fail("provisioning blob refused", s);
  Write("provisioned: identity ");
  Write(provisioned.identity);
  const GatewayEndpoint& first = provisioned.gateways[0];
  Print(", PSK %u bytes, aggregator %u.%u.%u.", provisioned.psk_size,
        first.address[0], first.address[1], first.address[2]);
  Print("%u port %u, %u further gateways\n", first.address[3], first.port,
        static_cast<unsigned>(provisioned.gateway_count - 1));

  s = board::OpenStorage();
  if (!s.ok()) return Fail("flash", s);
  s = StartNetwork();
  if (!s.ok()) return Fail("network", s);
  s = udp.Open(first.address, first.port);
  if (!s.ok()) return Fail("udp", s);
  dtls::StartDtlsMemoryPool();
  static const char kPersonalization[] = "edgeadmm-reference-device";
  s = drbg.Init(
      DeviceEntropy(),
      ConstByteSpan(reinterpret_cast<const std::byte*>(kPersonalization),
                    sizeof(kPersonalization) - 1));
  if (!s.ok()) return Fail("drbg", s);
  dtls::DtlsPskLinkConfig d;
  d.lower = &udp;
  d.now_ms = &NowMs;
  d.random = &drbg;
  d.identity = provisioned.identity;
  d.key = ConstByteSpan(reinterpret_cast<const std::byte*>(provisioned.psk),
                        provisioned.psk_size);
  d.handshake_max_ms = 4000;
  auto* secure = new (dtls_memory) dtls::DtlsPskLink(d);
  coap::CoapClientConfig c;
  c.link = secure;
  c.now_ms = &NowMs;
  c.tx_buffer = device.coap_tx_buffer();
  c.rx_buffer = device.coap_rx_buffer();
  c.block_szx = device.coap_block_szx();
  c.seed = static_cast<uint32_t>(board::NowMs()) ^ 0x5eed;
  // A daemon that restarted drops this session's records unanswered: an
  // exchange that hears nothing for 10 s fails and the next one handshakes
  // again, as on Linux (docs/sdk.md).
  c.silence_timeout_ms = 10000;
  auto* coap = new (coap_memory) coap::CoapClient(c);

  auto data = DatasetView::Create(
      Span<const Real>(kFeatures, kSamples * Shape::kDimension),
      Span<const Real>(kLabels, kSamples), kSamples, Shape::kDimension);
  if (!data.ok()) return Fail("data", data.status());
  DeviceClientConfig config;
  config.device_id = provisioned.identity;
  config.transport = GatewayTransport(coap);
  config.storage = &board::PersistentStorage();
  config.entropy = &DeviceEntropy();
  config.data = *data;
  config.epsilon_budget = kEpsilonBudget;
  config.task_refresh_ms = 2000;
  s = device.Init(config);
  if (!s.ok()) return Fail("client init", s);

  DeviceClient& client = device.client();
  const uint64_t start = board::NowMs();
  uint32_t reported = 0;
  ClientState shown = ClientState::kStart;
  while (client.state() != ClientState::kDone &&
         client.state() != ClientState::kHalted &&
         board::NowMs() - start < kJobTimeoutMs) {
    client.Poll(board::NowMs()).IgnoreError();  // last_error() tells
    coap->Poll(0).status().IgnoreError();
    secure->Wait(10);
    const DeviceClientCounters& n = client.counters();
    if (n.uploads_accepted + n.uploads_duplicate != reported) {
      reported = n.uploads_accepted + n.uploads_duplicate;
      uint64_t job = 0;
      uint64_t round = 0;
      client.last_step(job, round);
      Print("job %u round %u: upload accepted (%u so far)\n",
            static_cast<unsigned>(job), static_cast<unsigned>(round),
            n.uploads_accepted);
    }
    if (client.state() != shown) {
      shown = client.state();
      Write("state ");
      Write(ClientStateName(shown));
      Write("\n");
    }
    if (CutInRound(client)) {
      // The round's input, keys and shares are in flash: end as a power
      // cut would; the next boot resumes the round.
      Write("power cut in a secure round (phase 2 stored)\n");
      return 0;
    }
  }
  const DeviceClientCounters& n = client.counters();
  Print("job done %u: steps %u, uploads accepted %u, duplicates %u\n",
        client.state() == ClientState::kDone ? 1u : 0u, n.steps_computed,
        n.uploads_accepted, n.uploads_duplicate);
  // The device's own ledger: the charge of its own noise (the Gaussian
  // step's, or its DDG share in a secure round) at the config's delta,
  // for replace-one neighbours, against the gateway (docs/privacy.md).
  const Result<double> epsilon = device.trainer().LocalEpsilon();
  if (epsilon.ok()) {
    char text[128];
    baremetal::Format(text, sizeof(text),
                      "local epsilon spent %.9g at delta %.3g (own noise, "
                      "replace-one, against the gateway)\n",
                      *epsilon, DeviceClientConfig().delta);
    Write(text);
  } else {
    Print("local epsilon: none (status %u)\n",
          static_cast<unsigned>(epsilon.status().code()));
  }
  Print("resumed uploads %u, refused steps %u, transport errors %u in %u ms\n",
        n.resumed_uploads, n.steps_refused, n.transport_errors,
        static_cast<unsigned>(board::NowMs() - start));
  Print("dtls pool high-water %u of %u bytes; stack_used %u\n",
        static_cast<unsigned>(dtls::DtlsPoolHighWater()),
        static_cast<unsigned>(dtls::DtlsPoolBytes()),
        baremetal::StackBytesUsed());
  if (client.state() != ClientState::kDone) {
    return Fail("the job did not complete", client.last_error());
  }
  return 0;
}

}  // namespace
}  // namespace edgeadmm::device_example

int main() { return edgeadmm::device_example::Run(); }
