#include "edgeadmm/fleet/handshake_benchmark.h"

#include <chrono>
#include <memory>

#include "edgeadmm/fleet/fleet_simulator.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/transport.h"

namespace edgeadmm::fleet {
namespace {

struct Session {
  std::string identity;
  std::unique_ptr<posix::CoapDtlsTransport> transport;
  std::vector<std::byte> body;
  bool done = false;
};

}  // namespace

Result<HandshakeReport> MeasureHandshakes(const HandshakeConfig& config) {
  if (config.sessions == 0 || config.concurrency == 0 || config.key.empty()) {
    return Status::InvalidArgument();
  }
  // Sharded as the fleets' (CoapClientContext::ShardsFor).
  posix::CoapClientContext context(
      posix::CoapClientContext::ShardsFor(config.sessions));
  EDGEADMM_TRY(context.status());
  std::vector<Session> sessions(config.sessions);
  const ConstByteSpan key(reinterpret_cast<const std::byte*>(config.key.data()),
                          config.key.size());
  HandshakeReport report;
  const size_t rss_before = ResidentBytes();
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::milliseconds(config.timeout_ms);
  size_t next = 0;
  size_t finished = 0;
  std::vector<size_t> active;  // sessions with an exchange in flight
  while (finished < config.sessions &&
         std::chrono::steady_clock::now() < deadline) {
    while (active.size() < config.concurrency && next < config.sessions) {
      Session& s = sessions[next];
      s.identity = config.identity_prefix + std::to_string(next);
      posix::CoapDtlsConfig c;
      c.host = config.host.c_str();
      c.port = config.port;
      c.identity = s.identity.c_str();
      c.key = key;
      c.ack_timeout_ms = 1000;
      s.transport = std::make_unique<posix::CoapDtlsTransport>(context, c);
      s.body.resize(1024);
      TransportRequest request;
      request.path = config.path.c_str();
      const Status started = s.transport->StartRequest(
          request, ByteSpan(s.body.data(), s.body.size()));
      if (!started.ok()) {
        ++report.failed;
        ++finished;
        if (report.first_error.empty()) report.first_error = started.str();
        s.done = true;
      } else {
        active.push_back(next);
      }
      ++next;
    }
    EDGEADMM_TRY(context.Poll(5));
    for (size_t k = 0; k < active.size();) {
      Session& s = sessions[active[k]];
      TransportResult result;
      if (!s.transport->TakeResult(result)) {
        ++k;
        continue;
      }
      active[k] = active.back();
      active.pop_back();
      s.done = true;
      ++finished;
      if (result.status.ok()) {
        ++report.ok;
      } else {
        ++report.failed;
        if (report.first_error.empty())
          report.first_error = result.status.str();
      }
      if (!config.keep_open) s.transport.reset();
    }
  }
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  report.failed += config.sessions - finished;
  report.per_second = report.seconds > 0 ? report.ok / report.seconds : 0;
  if (config.keep_open) {
    const size_t rss_after = ResidentBytes();
    if (rss_after > rss_before) {
      report.bytes_per_session = static_cast<double>(rss_after - rss_before) /
                                 static_cast<double>(config.sessions);
    }
  }
  return report;
}

}  // namespace edgeadmm::fleet
