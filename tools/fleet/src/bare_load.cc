#include "edgeadmm/fleet/bare_load.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <vector>

#include "edgeadmm/fleet/fleet_progress.h"
#include "edgeadmm/fleet/psk_files.h"
#include "edgeadmm/fleet/source_addresses.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"

namespace edgeadmm::fleet {
namespace {

using Clock = std::chrono::steady_clock;

struct LoadDevice {
  std::string id;
  std::vector<uint8_t> key;
  posix::CoapDtlsConfig link;
  std::unique_ptr<posix::CoapDtlsTransport> transport;
  std::vector<std::byte> notification = std::vector<std::byte>(64);
  std::vector<std::byte> response = std::vector<std::byte>(64);
  bool observing = false;
  bool registered = false;
  bool uploading = false;
  std::string round_seen;      // the last round notified
  std::string round_uploaded;  // the last round uploaded
  std::string round_waited;    // the round whose upload waits for upload_at
  uint64_t upload_at_ms = 0;
  uint32_t uploads = 0;
};

// Draws the waits of the upload spread.
using SpreadDraw = std::mt19937_64;

host::ErrorOr<std::vector<std::unique_ptr<LoadDevice>>> LoadDevices(
    const BareLoadConfig& c, const SourceAddresses* addresses) {
  Result<std::vector<std::string>> listed = ListPskIds(c.psk_dir);
  if (!listed.ok()) return host::Error::NotFound("no PSK dir " + c.psk_dir);
  const std::vector<std::string>& ids = *listed;
  std::vector<std::unique_ptr<LoadDevice>> devices;
  for (size_t i : PartIndices(ids, c.part, c.parts, "")) {
    const std::string& id = ids[i];
    auto dev = std::make_unique<LoadDevice>();
    dev->id = id;
    auto key = ReadPskFile(c.psk_dir + "/" + id);
    if (!key.ok()) return host::Error::InvalidArgument("bad PSK file " + id);
    dev->key = std::move(key).value();
    dev->link.host = c.host.c_str();
    dev->link.port = c.port;
    dev->link.identity = dev->id.c_str();
    dev->link.key = ConstByteSpan(
        reinterpret_cast<const std::byte*>(dev->key.data()), dev->key.size());
    dev->link.local_ports =
        addresses ? addresses->ForDevice(devices.size()) : nullptr;
    devices.push_back(std::move(dev));
  }
  if (devices.empty()) return host::Error::NotFound("no PSK files");
  return devices;
}

// One device's step at `now_ms`: observe, take notifications and answers,
// upload once per new round after its spread wait. Counts into `r`.
void StepDevice(const BareLoadConfig& c, const std::vector<std::byte>& payload,
                uint64_t now_ms, SpreadDraw& draw, LoadDevice& d,
                BareLoadReport& r) {
  if (!d.observing) {
    d.observing = d.transport
                      ->StartObserve("v1/task", ByteSpan(d.notification.data(),
                                                         d.notification.size()))
                      .ok();
  }
  TransportResult result;
  while (d.transport->TakeNotification(result)) {
    if (!result.status.ok()) {
      ++r.transport_errors;
      d.observing = false;  // registers again
      continue;
    }
    d.registered = true;
    d.round_seen.assign(reinterpret_cast<const char*>(d.notification.data()),
                        std::min(result.payload_size, d.notification.size()));
  }
  if (d.uploading && d.transport->TakeResult(result)) {
    d.uploading = false;
    if (!result.status.ok()) {
      ++r.transport_errors;
    } else if (result.code == ((2 << 5) | 4)) {
      ++r.uploads_accepted;
      ++d.uploads;
      d.round_uploaded = d.round_seen;
    } else {
      ++r.uploads_refused;
    }
  }
  if (!d.uploading && d.registered && d.uploads < c.rounds &&
      d.round_seen != d.round_uploaded) {
    if (d.round_waited != d.round_seen) {
      d.round_waited = d.round_seen;
      d.upload_at_ms =
          now_ms + (c.upload_spread_ms == 0 ? 0 : draw() % c.upload_spread_ms);
    }
    if (now_ms < d.upload_at_ms) return;
    TransportRequest request;
    request.method = CoapMethod::kPost;
    request.path = "v1/update";
    request.payload = ConstByteSpan(payload.data(), payload.size());
    d.uploading = d.transport
                      ->StartRequest(request, ByteSpan(d.response.data(),
                                                       d.response.size()))
                      .ok();
  }
}

}  // namespace

host::ErrorOr<BareLoadReport> RunBareLoad(const BareLoadConfig& c,
                                          volatile std::sig_atomic_t* stop,
                                          std::FILE* progress) {
  if (c.port == 0 || c.rounds == 0 || !(c.start_per_second >= 0) ||
      c.parts == 0 || c.part >= c.parts) {
    return host::Error::InvalidArgument("bad port, rounds, start rate or part");
  }
  std::unique_ptr<SourceAddresses> addresses;
  if (!c.local_address.empty()) {
    EDGEADMM_HOST_TRY_ASSIGN(
        SourceAddresses a,
        SourceAddresses::Make(c.local_address, c.local_addresses, 1 << 20));
    addresses = std::make_unique<SourceAddresses>(std::move(a));
  }
  EDGEADMM_HOST_TRY_ASSIGN(auto devices, LoadDevices(c, addresses.get()));
  // Sharded as the daemon fleet's (CoapClientContext::ShardsFor).
  posix::CoapClientContext context(
      posix::CoapClientContext::ShardsFor(devices.size()));
  if (!context.status().ok()) {
    return host::Error(context.status(), "libcoap context without DTLS");
  }
  for (auto& d : devices) {
    d->transport = std::make_unique<posix::CoapDtlsTransport>(context, d->link);
  }
  const std::vector<std::byte> payload(c.payload_bytes, std::byte{0x5a});
  BareLoadReport r;
  r.devices = devices.size();
  FleetProgress lines(progress, c.progress_ms, c.watch_pid);
  const Clock::time_point start = Clock::now();
  const auto now_ms = [start] {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                              start)
            .count());
  };
  SpreadDraw draw(c.part);
  size_t started = 0;
  bool start_marked = false;
  while (stop == nullptr || *stop == 0) {
    size_t allowed = devices.size();
    if (c.start_per_second > 0) {
      allowed = std::min(allowed,
                         1 + static_cast<size_t>(static_cast<double>(now_ms()) *
                                                 c.start_per_second / 1000.0));
    }
    size_t starting = 0, done = 0;
    FleetSample sample;
    for (size_t i = 0; i < started; ++i) {
      LoadDevice& d = *devices[i];
      StepDevice(c, payload, now_ms(), draw, d, r);
      starting += d.transport->ever_connected() ? 0 : 1;
      done += d.uploads >= c.rounds ? 1 : 0;
      sample.registered += d.transport->ever_registered() ? 1 : 0;
      sample.connected += d.transport->ever_connected() ? 1 : 0;
      sample.sessions += d.transport->connected() ? 1 : 0;
      sample.handshakes += d.transport->handshakes();
    }
    if (c.max_starting > 0) {
      allowed = std::min(allowed, started + (c.max_starting > starting
                                                 ? c.max_starting - starting
                                                 : 0));
    }
    started = std::max(started, allowed);
    if (r.registered < devices.size() && sample.registered == devices.size()) {
      r.start_seconds = static_cast<double>(now_ms()) / 1000.0;
    }
    r.registered = sample.registered;
    r.handshakes = sample.handshakes;
    // A line at the end of the start phase (every device had an upload
    // accepted: the load benchmark's mark) and at the end.
    const bool mark = !start_marked && r.uploads_accepted >= devices.size();
    start_marked = start_marked || mark;
    if (lines.Due(now_ms()) || mark || done == devices.size()) {
      sample.devices = devices.size();
      sample.done = done;
      sample.counters.uploads_accepted = r.uploads_accepted;
      sample.counters.transport_errors = r.transport_errors;
      lines.Print(now_ms(), sample);
    }
    if (done == devices.size()) break;
    context.Poll(20).status().IgnoreError();
  }
  for (auto& d : devices) d->transport->Close();
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace edgeadmm::fleet
