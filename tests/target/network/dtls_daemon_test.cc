// The board's firmware against the real aggregator: the SDK's CoapClient
// over DtlsPskLink (Mbed TLS built for the Cortex-M4F, static pool) over
// lwIP UDP, to edgeadmm-aggregatord (libcoap + OpenSSL) on the host's
// loopback (QEMU user networking: 10.0.2.2). Started by run_with_daemon.py,
// which enrols one device, starts a one-device job and the daemon, and
// passes "<image> <port> <identity> <psk-hex> <job-id> [wrongkey]" on the
// board's command line (a product provisions identity and PSK in flash).
// `wrongkey` flips one key bit: the handshake must then be refused.
// `lossy`: a relay drops datagrams both ways; single exchanges may fail,
// the training must still complete. `bigtask`: the job has dimension 400,
// its task comes in 1024-byte Block2 blocks (the largest records the
// 1200-byte Mbed TLS buffers must carry); no training then.
// Then the SDK's DeviceClient trains the job's five rounds over the same
// channel (prox-ADMM, logistic, 4 records of 3 features) and uploads.
// `persist`: the client persists in the board's flash (board::OpenStorage;
// the QEMU boards' flash model, a file in QEMU's working directory) instead
// of RAM. `halt`: the client
// stops right after persisting its first upload, before sending it, and the
// firmware ends (the power is cut: QEMU exits). `resume`: the next boot on
// the same flash must resend that upload (same round, same bytes) before it
// draws any entropy for a new step, then finish the job (run_with_daemon.py
// --reboot compares the two runs and the daemon's stored payload).
// `data=R;R;...`: the device's shard instead of the built-in 4 records, at
// most kMaxSamples records R = "x1,x2,x3,y", each value an integer in
// thousandths (no strtod: newlib's links malloc); `noiseless`: the client
// runs steps without noise of its own (a σ = 0 job, allow_unaccounted_steps);
// `sampled`: the job's cohorts are m of n, the device trains only in the
// rounds that pick it (any number of uploads, each accepted once).
// run_with_daemon.py --mixed gives three firmware devices their shards of
// one job that Linux devices (edgeadmm-fleet connect) share.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "daemon_session.h"
#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/baremetal/stack.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/board/ethernet.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/crc32.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_memory_pool.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/lwip/network.h"
#include "edgeadmm/lwip/udp_link.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"

namespace edgeadmm {
namespace {

using daemon_session::kHost;
using daemon_session::NowMs;
constexpr size_t kDimension = 3;   // run_with_daemon.py's job
constexpr size_t kSamples = 4;     // the built-in shard
constexpr size_t kMaxSamples = 8;  // a shard given on the command line
constexpr uint32_t kRounds = 5;

struct Options : daemon_session::Arguments {
  bool wrong_key = false;
  bool lossy = false;
  bool big_task = false;
  bool persist = false;
  bool halt = false;
  bool cut = false;
  bool resume = false;
  bool noiseless = false;
  bool sampled = false;
  // The shard of `data=`: features (row-major) and labels.
  Real features[kMaxSamples * kDimension] = {};
  Real labels[kMaxSamples] = {};
  size_t samples = 0;  // 0: the built-in shard
  bool bad_data = false;
};

// "x1,x2,x3,y;..." in thousandths into o's shard; false if malformed.
bool ParseData(const char* text, Options& o) {
  size_t values = 0;
  const char* p = text;
  while (*p != '\0') {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p || values >= kMaxSamples * (kDimension + 1)) return false;
    const size_t record = values / (kDimension + 1);
    const size_t column = values % (kDimension + 1);
    const Real value = static_cast<Real>(v) / 1000;
    if (column < kDimension) {
      o.features[record * kDimension + column] = value;
    } else {
      o.labels[record] = value;
    }
    ++values;
    p = end;
    const char separator = column < kDimension ? ',' : ';';
    if (*p == separator) {
      ++p;
    } else if (*p != '\0') {
      return false;
    }
  }
  if (values == 0 || values % (kDimension + 1) != 0) return false;
  o.samples = values / (kDimension + 1);
  return true;
}

Options ParseCommandLine() {
  Options o;
  daemon_session::ParseCommandLine(o, [&o](const char* word) {
    if (std::strcmp(word, "wrongkey") == 0) o.wrong_key = true;
    if (std::strcmp(word, "lossy") == 0) o.lossy = true;
    if (std::strcmp(word, "bigtask") == 0) o.big_task = true;
    if (std::strcmp(word, "halt") == 0) o.halt = true;
    if (std::strcmp(word, "cut") == 0) o.cut = true;
    if (std::strcmp(word, "resume") == 0) o.resume = true;
    if (std::strcmp(word, "noiseless") == 0) o.noiseless = true;
    if (std::strcmp(word, "sampled") == 0) o.sampled = true;
    if (std::strncmp(word, "data=", 5) == 0 && !ParseData(word + 5, o)) {
      o.bad_data = true;
    }
    if (std::strcmp(word, "persist") == 0) o.persist = true;
  });
  if (o.wrong_key && o.key_size > 0) o.key[0] ^= 0x01;
  return o;
}

void Print(const char* format, unsigned a, unsigned b = 0, unsigned c = 0,
           unsigned d = 0) {
  char text[160];
  baremetal::Format(text, sizeof(text), format, a, b, c, d);
  board::ConsoleWrite(text);
}

Options options;
lwip::UdpLink udp;
alignas(Drbg) std::byte drbg_memory[sizeof(Drbg)];
alignas(dtls::DtlsPskLink) std::byte dtls_memory[sizeof(dtls::DtlsPskLink)];
alignas(coap::CoapClient) std::byte client_memory[sizeof(coap::CoapClient)];
dtls::DtlsPskLink* secure = nullptr;
coap::CoapClient* client = nullptr;
std::byte tx[1200];
std::byte rx[1200];
std::byte body[2048];

// The network, the DTLS link and the client, brought up by the first test.
coap::CoapClient* Client() {
  if (client != nullptr) return client;
  options = ParseCommandLine();
  if (options.port == 0 || options.key_size == 0) return nullptr;
  if (!daemon_session::StartNetwork().ok()) return nullptr;
  if (!udp.Open(kHost, options.port).ok()) return nullptr;
  dtls::StartDtlsMemoryPool();
  auto* drbg = new (drbg_memory) Drbg();
  if (!daemon_session::InitDrbg(*drbg, "mcu-dtls-daemon-test").ok())
    return nullptr;
  secure = new (dtls_memory)
      dtls::DtlsPskLink(daemon_session::DtlsConfig(options, &udp, drbg));
  const coap::CoapClientConfig c = daemon_session::CoapConfig(
      secure, ByteSpan(tx, sizeof(tx)), ByteSpan(rx, sizeof(rx)));
  client = new (client_memory) coap::CoapClient(c);
  return client;
}

TransportResult Get(const char* path) {
  TransportRequest request;
  request.path = path;
  TransportResult result;
  Client()
      ->Request(request, ByteSpan(body, sizeof(body)), 30000, result)
      .IgnoreError();  // the outcome is result.status
  return result;
}

void PrintMemory() {
  Print("dtls pool high-water %u of %u bytes\n",
        static_cast<unsigned>(dtls::DtlsPoolHighWater()),
        static_cast<unsigned>(dtls::DtlsPoolBytes()));
  Print("stack_used %u\n", baremetal::StackBytesUsed());
}

TEST(DtlsDaemonTest, HandshakeAndStatus) {
  ASSERT_TRUE(Client() != nullptr);
  const uint64_t start = board::NowMs();
  const TransportResult status = Get(wire::kStatusPath);
  const unsigned elapsed = static_cast<unsigned>(board::NowMs() - start);
  if (options.wrong_key) {
    // The daemon cannot verify our Finished: refused, never established.
    EXPECT_EQ(status.status, Status::Unauthenticated());
    EXPECT_FALSE(secure->established());
    Print("handshake refused (wrong key): status %u after %u ms\n",
          static_cast<unsigned>(status.status.code()), elapsed);
    PrintMemory();
    return;
  }
  if (options.lossy && !status.status.ok()) {
    Print("lossy: GET v1/status failed (status %u) after %u ms\n",
          static_cast<unsigned>(status.status.code()), elapsed);
    return;
  }
  ASSERT_TRUE(status.status.ok());
  EXPECT_EQ(status.code, wire::kCoapContent);
  ASSERT_TRUE(secure->established());
  board::ConsoleWrite("cipher suite: ");
  board::ConsoleWrite(secure->cipher_suite());
  board::ConsoleWrite("\n");
  Print("handshake + GET v1/status: %u ms (2.05, %u bytes)\n", elapsed,
        static_cast<unsigned>(status.payload_size));
}

TEST(DtlsDaemonTest, TaskOfTheRunningJob) {
  ASSERT_TRUE(Client() != nullptr);
  if (options.wrong_key || options.lossy) return;
  const uint64_t start = board::NowMs();
  const TransportResult task = Get(wire::kTaskPath);
  const unsigned elapsed = static_cast<unsigned>(board::NowMs() - start);
  ASSERT_TRUE(task.status.ok());
  ASSERT_EQ(task.code, wire::kCoapContent);
  if (options.big_task) {
    EXPECT_GT(task.payload_size, 1024u);
    Print("GET v1/task (Block2): %u bytes in %u ms\n",
          static_cast<unsigned>(task.payload_size), elapsed);
    PrintMemory();
    return;
  }
  static Real z[kDimension];
  wire::DecodedRoundTask decoded{};
  ASSERT_TRUE(wire::DecodeRoundTask(ConstByteSpan(body, task.payload_size),
                                    Span<Real>(z, kDimension), Span<Real>(),
                                    decoded)
                  .ok());
  EXPECT_EQ(decoded.header.job_id, options.job_id);
  Print("GET v1/task: job %u round %u, %u bytes in %u ms\n",
        static_cast<unsigned>(decoded.header.job_id),
        static_cast<unsigned>(decoded.header.round_id),
        static_cast<unsigned>(task.payload_size), elapsed);
  PrintMemory();
}

// The device's data and client state (static: no heap).
const Real kFeatures[kSamples * kDimension] = {1.0, 0.5,  -0.2, -0.3, 1.0, 0.4,
                                               0.8, -1.0, 0.1,  -0.6, 0.2, 1.0};
const Real kLabels[kSamples] = {1, -1, 1, -1};
alignas(16) std::byte trainer_bytes[LocalStepWorkspaceBytes(
    AlgorithmKind::kProxAdmm, LossKind::kLogistic, kMaxSamples, kDimension)];
alignas(16) std::byte scratch[DeviceClient::ComputeScratchBytes(kDimension)];
alignas(16) std::byte client_bytes[DeviceClient::MemoryBytes(kDimension)];
alignas(16) std::byte storage_bytes[MemoryStorage::kMaxKeys *
                                    DeviceClient::RecordBytes(kDimension)];
alignas(MemoryStorage) std::byte storage_memory[sizeof(MemoryStorage)];
alignas(LocalTrainer) std::byte trainer_memory[sizeof(LocalTrainer)];
alignas(DeviceClient) std::byte device_memory[sizeof(DeviceClient)];

// The board's entropy, counting the reads: a resumed upload must be sent
// before the client draws anything for a new step (no fresh noise for a
// round it already persisted).
class CountingEntropy final : public EntropySource {
 public:
  Status Read(ByteSpan out) override {
    ++reads;
    return board::Entropy().Read(out);
  }
  uint32_t reads = 0;
};
CountingEntropy counting_entropy;

// The CoAP client, recording the first POST v1/update: its size, CRC-32,
// the client's last step then and the entropy reads before it.
class RecordingTransport final : public Transport {
 public:
  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override {
    if (!first_upload_seen && request.method == CoapMethod::kPost &&
        std::strcmp(request.path, wire::kUpdatePath) == 0) {
      first_upload_seen = true;
      first_upload_bytes = request.payload.size();
      first_upload_crc = Crc32(request.payload);
      entropy_reads_before = counting_entropy.reads;
      uint64_t job = 0;
      if (device != nullptr) device->last_step(job, first_upload_round);
    }
    return client->StartRequest(request, response_buffer);
  }
  bool TakeResult(TransportResult& result) override {
    return client->TakeResult(result);
  }
  void Cancel() override { client->Cancel(); }
  Status StartObserve(const char* path, ByteSpan buffer) override {
    return client->StartObserve(path, buffer);
  }
  bool TakeNotification(TransportResult& result) override {
    return client->TakeNotification(result);
  }
  void StopObserve() override { client->StopObserve(); }
  void Reconnect() override { client->Reconnect(); }
  StatusWithSize Poll(uint32_t timeout_ms) override {
    return client->Poll(timeout_ms);
  }

  const DeviceClient* device = nullptr;
  bool first_upload_seen = false;
  size_t first_upload_bytes = 0;
  uint32_t first_upload_crc = 0;
  uint64_t first_upload_round = 0;
  uint32_t entropy_reads_before = 0;
};
RecordingTransport recording;

TEST(DtlsDaemonTest, DeviceClientTrainsTheJob) {
  ASSERT_TRUE(Client() != nullptr);
  if (options.wrong_key || options.big_task) return;
  if (!options.lossy) {
    ASSERT_TRUE(secure->established());  // by the tests above
  }
  ASSERT_FALSE(options.bad_data);
  const bool given = options.samples > 0;
  const size_t samples = given ? options.samples : kSamples;
  auto data = DatasetView::Create(
      Span<const Real>(given ? options.features : kFeatures,
                       samples * kDimension),
      Span<const Real>(given ? options.labels : kLabels, samples), samples,
      kDimension);
  ASSERT_TRUE(data.ok());
  if (given) {
    Print("shard from the command line: %u records\n",
          static_cast<unsigned>(samples));
  }
  auto* trainer = new (trainer_memory) LocalTrainer();
  auto* device = new (device_memory) DeviceClient();
  DeviceClientConfig c;
  c.device_id = options.identity;
  recording.device = device;
  c.transport = &recording;  // the CoAP client
  if (options.persist) {
    // The board's flash: survives the end of this run.
    ASSERT_TRUE(board::OpenStorage().ok());
    c.storage = &board::PersistentStorage();
  } else {
    // RAM storage: persistence across a reset is not part of this run.
    c.storage = new (storage_memory)
        MemoryStorage(ByteSpan(storage_bytes, sizeof(storage_bytes)));
  }
  c.entropy = &counting_entropy;  // UNSAFE test entropy (see Client())
  c.halt_after_persist = options.halt;
  c.data = *data;
  c.trainer = trainer;
  c.trainer_workspace = ByteSpan(trainer_bytes, sizeof(trainer_bytes));
  c.compute_scratch = ByteSpan(scratch, sizeof(scratch));
  c.epsilon_budget = 1e6;
  c.allow_unaccounted_steps = options.noiseless;  // σ = 0 job
  c.task_refresh_ms = 2000;
  ASSERT_EQ(device->Init(c, ByteSpan(client_bytes, sizeof(client_bytes))),
            Status::Ok());
  const uint64_t start = board::NowMs();
  while (device->state() != ClientState::kDone &&
         device->state() != ClientState::kHalted &&
         !(options.cut && recording.first_upload_seen) &&
         board::NowMs() - start < 120000) {
    device->Poll(board::NowMs()).IgnoreError();
    client->Poll(0).status().IgnoreError();
    secure->Wait(10);
  }
  const DeviceClientCounters& n = device->counters();
  if (options.halt || options.cut) {
    // halt: persisted, not sent; the firmware ends here, as at a power cut.
    // cut: persisted and its datagram sent (the daemon may have stored it),
    // its answer not yet taken by the client: the firmware prints the upload
    // and waits, polling nothing, for the harness to SIGKILL QEMU.
    ASSERT_TRUE(options.cut || device->state() == ClientState::kHalted);
    uint64_t job = 0;
    uint64_t round = 0;
    ASSERT_TRUE(device->last_step(job, round));
    const ConstByteSpan pending = device->pending_upload();
    ASSERT_FALSE(pending.empty());
    if (options.halt) {
      EXPECT_EQ(n.upload_attempts, 0u);
      EXPECT_FALSE(recording.first_upload_seen);
    } else {
      ASSERT_TRUE(recording.first_upload_seen);
      EXPECT_EQ(n.uploads_accepted + n.uploads_duplicate, 0u);
    }
    board::ConsoleWrite(options.halt ? "halted after persisting"
                                     : "in flight at the cut");
    Print(": upload round %u, %u bytes, crc %x\n", static_cast<unsigned>(round),
          static_cast<unsigned>(pending.size()), Crc32(pending));
    // The bytes themselves (small at dimension 3): the daemon must store
    // this update's values.
    board::ConsoleWrite("persisted upload hex: ");
    static const char kHex[] = "0123456789abcdef";
    for (const std::byte b : pending) {
      const char text[3] = {kHex[static_cast<unsigned>(b) >> 4],
                            kHex[static_cast<unsigned>(b) & 15], '\0'};
      board::ConsoleWrite(text);
    }
    board::ConsoleWrite("\n");
    if (options.cut) {
      const uint64_t cut = board::NowMs();
      while (board::NowMs() - cut < 30000) {
      }
      board::ConsoleWrite("not killed within 30 s of the cut\n");
      EXPECT_TRUE(false);
    }
    return;
  }
  if (recording.first_upload_seen) {
    Print("first upload sent: round %u, %u bytes, crc %x\n",
          static_cast<unsigned>(recording.first_upload_round),
          static_cast<unsigned>(recording.first_upload_bytes),
          recording.first_upload_crc);
    Print("entropy reads before the first upload: %u; resumed uploads %u\n",
          recording.entropy_reads_before, n.resumed_uploads);
  }
  if (options.resume) {
    EXPECT_EQ(n.resumed_uploads, 1u);
    EXPECT_EQ(recording.entropy_reads_before, 0u);
    EXPECT_EQ(n.steps_computed, kRounds - 1);  // not the persisted round
  }
  Print(
      "device client: state done %u, steps %u, uploads accepted %u, "
      "duplicate %u\n",
      device->state() == ClientState::kDone ? 1u : 0u, n.steps_computed,
      n.uploads_accepted, n.uploads_duplicate);
  Print(
      "training: %u ms, %u reports; transport errors %u, CoAP "
      "retransmissions %u\n",
      static_cast<unsigned>(board::NowMs() - start), n.reports_sent,
      n.transport_errors, client->retransmissions());
  EXPECT_TRUE(device->state() == ClientState::kDone);
  if (options.lossy) {
    // A receipt may be lost (the resend is a duplicate) or a round may
    // close first; run_with_daemon.py checks the database.
    EXPECT_GE(n.steps_computed, kRounds);
  } else if (options.sampled) {
    // In the rounds the job's cohorts picked it: run_mixed_job.py compares
    // the count with the database's.
    EXPECT_GE(n.uploads_accepted, 1u);
    EXPECT_EQ(n.uploads_accepted, n.steps_computed);
    EXPECT_EQ(n.uploads_duplicate, 0u);
  } else {
    // A resumed upload whose first copy reached the daemon before the cut
    // is answered as a duplicate; run_with_daemon.py checks the database
    // holds it once.
    EXPECT_EQ(n.uploads_accepted + n.uploads_duplicate, kRounds);
    EXPECT_LE(n.uploads_duplicate, options.resume ? 1u : 0u);
  }
  PrintMemory();
}

}  // namespace
}  // namespace edgeadmm
