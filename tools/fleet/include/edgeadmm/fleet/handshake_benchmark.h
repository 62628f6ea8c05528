// Handshake benchmark: how many DTLS-PSK sessions per second the fleet's
// CoAP client side (CoapDtlsTransport over one CoapClientContext) opens
// against a real server (the aggregator daemon, or Debian's
// coap-server-openssl), and what an open session costs in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/result.h"

namespace edgeadmm::fleet {

struct HandshakeConfig {
  std::string host = "127.0.0.1";  // numeric address
  uint16_t port = 5684;
  std::string identity_prefix = "fleet-";  // identity i = prefix + i
  std::vector<uint8_t> key;                // the PSK of every identity
  size_t sessions = 1000;
  size_t concurrency = 64;  // handshakes in flight at once
  std::string path;         // resource fetched once per session ("" = /)
  uint32_t timeout_ms = 30000;
  // Keep every session open until the end (measures memory per session)
  // instead of closing each after its first response.
  bool keep_open = false;
};

struct HandshakeReport {
  size_t ok = 0;      // sessions that got a CoAP response
  size_t failed = 0;  // handshake or exchange failed
  std::string first_error;
  double seconds = 0;
  double per_second = 0;         // ok / seconds
  double bytes_per_session = 0;  // RSS growth / sessions (keep_open only)
};

// Runs the benchmark. INVALID_ARGUMENT for a bad config, UNAVAILABLE if the
// CoAP context cannot be created.
Result<HandshakeReport> MeasureHandshakes(const HandshakeConfig& config);

}  // namespace edgeadmm::fleet
