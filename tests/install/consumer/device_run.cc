// The consumer's device mode: one DeviceClient over the libcoap DTLS-PSK
// transport, file storage and getrandom, on a synthetic 123-feature shard,
// run against a real aggregator until the job is done. Only installed
// headers and libraries are used.
#include "device_run.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "edgeadmm/device_client.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/file_storage.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/posix/monotonic_clock.h"

namespace consumer {
namespace {

using namespace edgeadmm;

constexpr size_t kDim = 123;  // the job's feature count (a9a's)
constexpr size_t kRecords = 40;

// The hex key of a PSK file (whitespace ignored), or an empty vector.
std::vector<std::byte> ReadHexKey(const char* path) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  std::string digits;
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') digits += c;
  }
  std::vector<std::byte> key;
  if (digits.empty() || digits.size() % 2 != 0) return key;
  for (size_t i = 0; i < digits.size(); i += 2) {
    unsigned value = 0;
    if (std::sscanf(digits.c_str() + i, "%2x", &value) != 1) return {};
    key.push_back(static_cast<std::byte>(value));
  }
  return key;
}

// A separable shard: record j has three nonzero features, its label the
// sign of their weighted sum.
void MakeShard(Real* features, Real* labels) {
  for (size_t j = 0; j < kRecords; ++j) {
    Real* row = features + j * kDim;
    for (size_t k = 0; k < kDim; ++k) row[k] = 0;
    row[j % kDim] = 0.5;
    row[(7 * j + 3) % kDim] = (j % 3 == 0) ? -0.5 : 0.5;
    row[(11 * j + 5) % kDim] = 0.25;
    const Real score = row[0] + row[3] - row[5] + 0.1 * (j % 2 ? 1 : -1);
    labels[j] = score >= 0 ? 1 : -1;
  }
}

}  // namespace

int RunDevice(const DeviceArgs& args) {
  const std::vector<std::byte> key = ReadHexKey(args.psk_file);
  if (key.empty()) {
    std::fprintf(stderr, "edgeadmm_consumer: no hex key in %s\n",
                 args.psk_file);
    return 1;
  }
  static Real features[kRecords * kDim];
  static Real labels[kRecords];
  MakeShard(features, labels);
  auto view = DatasetView::Create(features, labels, kRecords, kDim);
  if (!view.ok()) return 1;

  FileStorage storage;
  if (!storage.Open(args.state_dir).ok()) return 1;
  GetrandomEntropy entropy;
  posix::CoapClientContext context;
  if (!context.status().ok()) return 1;
  posix::CoapDtlsConfig link;
  link.host = args.host;
  link.port = args.port;
  link.identity = args.identity;
  link.key = ConstByteSpan(key.data(), key.size());
  posix::CoapDtlsTransport transport(context, link);

  std::vector<std::byte> trainer_workspace(
      DeviceClient::TrainerWorkspaceBytes(kRecords, kDim));
  std::vector<std::byte> scratch(DeviceClient::ComputeScratchBytes(kDim, 0));
  std::vector<std::byte> memory(DeviceClient::MemoryBytes(kDim, 0));
  LocalTrainer trainer;
  DeviceClientConfig config;
  config.device_id = args.identity;
  config.transport = &transport;
  config.storage = &storage;
  config.entropy = &entropy;
  config.data = *view;
  config.trainer = &trainer;
  config.trainer_workspace =
      ByteSpan(trainer_workspace.data(), trainer_workspace.size());
  config.compute_scratch = ByteSpan(scratch.data(), scratch.size());
  config.epsilon_budget = 1000;
  DeviceClient client;
  const Status init =
      client.Init(config, ByteSpan(memory.data(), memory.size()));
  if (!init.ok()) {
    std::fprintf(stderr, "edgeadmm_consumer: Init: %s\n", init.str());
    return 1;
  }
  const uint64_t start = posix::MonotonicMs();
  for (;;) {
    const uint64_t now = posix::MonotonicMs();
    client.Poll(now).IgnoreError();
    const DeviceClientCounters& c = client.counters();
    if (client.state() == ClientState::kDone) {
      std::printf("edgeadmm_consumer: job done, uploads accepted %u\n",
                  static_cast<unsigned>(c.uploads_accepted));
      return 0;
    }
    if (client.state() == ClientState::kHalted ||
        now - start > 1000ull * args.timeout_s) {
      std::fprintf(stderr, "edgeadmm_consumer: %s after %u accepted\n",
                   ClientStateName(client.state()),
                   static_cast<unsigned>(c.uploads_accepted));
      return 1;
    }
    const uint64_t idle = client.IdleMs(now);
    const uint64_t wait = idle < 20 ? 20 : idle > 200 ? 200 : idle;
    transport.Poll(static_cast<uint32_t>(wait)).status().IgnoreError();
  }
}

}  // namespace consumer
