// BareLoad: the load benchmark's devices against the bare libcoap server
// (tools/bare_coap): each device a DTLS-PSK session (identity and key from
// a PSK directory, as `edgeadmm-fleet connect` uses them), from the same
// source addresses, started at the same pace, that registers an Observe of
// v1/task and, on each notification of a new round, POSTs `payload_bytes`
// to v1/update (after a uniform wait in [0, upload_spread_ms), as the
// daemon's devices wait RoundTask.upload_spread_ms), until it has uploaded
// `rounds` times. The traffic of a
// daemon round (one registration, then one notification and one upload per
// round) without the training step. `edgeadmm-fleet load`.
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "edgeadmm/host/error.h"

namespace edgeadmm::fleet {

struct BareLoadConfig {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  std::string psk_dir;
  std::string local_address;  // as DaemonFleetConfig
  size_t local_addresses = 1;
  // Runs only the devices whose index (sorted PSK files) is part modulo
  // parts: `parts` processes share the fleet, each its own libcoap context
  // (a client context walks all its sessions per I/O pass, as a server's).
  size_t part = 0;
  size_t parts = 1;
  double start_per_second = 0;
  size_t max_starting = 0;
  size_t payload_bytes = 512;
  uint32_t rounds = 3;
  // Each device waits a uniform draw in [0, this) ms after a new round's
  // notification before it uploads (0: at once).
  uint32_t upload_spread_ms = 0;
  uint32_t progress_ms = 10000;
  int watch_pid = 0;
};

struct BareLoadReport {
  size_t devices = 0;
  size_t registered = 0;     // devices whose Observe registration was answered
  double start_seconds = 0;  // until the last of them did
  uint64_t handshakes = 0;
  uint64_t uploads_accepted = 0;  // 2.04 answers
  uint64_t uploads_refused = 0;   // other answers
  uint64_t transport_errors = 0;
  double seconds = 0;
};

// Runs until every device uploaded `rounds` times or `*stop` is set.
// INVALID_ARGUMENT for a bad config or addresses, NOT_FOUND without PSK
// files.
host::ErrorOr<BareLoadReport> RunBareLoad(const BareLoadConfig& config,
                                          volatile std::sig_atomic_t* stop,
                                          std::FILE* progress);

}  // namespace edgeadmm::fleet
