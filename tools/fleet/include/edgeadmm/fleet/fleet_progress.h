// FleetProgress: the progress line of `edgeadmm-fleet connect`, every
// `interval_ms`: devices done, sessions open, handshakes and accepted
// uploads (totals and per second since the last line), transport errors,
// why sessions ended, and, with a watched pid (the daemon under load), its
// resident memory and CPU use over the interval (process_usage.h). The load
// benchmark (scripts/load-benchmark) reads these lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "edgeadmm/fleet/fleet_counters.h"
#include "edgeadmm/fleet/process_usage.h"
#include "edgeadmm/posix/session_ends.h"

namespace edgeadmm::fleet {

// One sample of the fleet, taken by the caller.
struct FleetSample {
  size_t devices = 0;
  size_t done = 0;
  size_t sessions = 0;      // devices with a DTLS session now
  size_t connected = 0;     // devices that completed a first handshake
  size_t away = 0;          // devices switched off by churn
  size_t registered = 0;    // devices whose Observe registration was answered
  uint64_t handshakes = 0;  // completed handshakes, reconnections included
  posix::SessionEnds session_ends;  // why sessions ended, by reason
  uint64_t notifications = 0;       // pushed by the server to observations
  FleetCounters counters;
};

// Writes "session ends: R refresh, H handshake timeout, ..." (no newline):
// the progress line's and the final summary's account of why the fleet's
// DTLS sessions ended, each end being one more handshake.
void PrintSessionEnds(std::FILE* out, const posix::SessionEnds& ends);

class FleetProgress {
 public:
  // `out` may be null (no lines); `watch_pid` 0: no process columns.
  FleetProgress(std::FILE* out, uint32_t interval_ms, int watch_pid);

  // True when a line is due at `now_ms` (ms since the fleet started).
  bool Due(uint64_t now_ms) const {
    return out_ != nullptr && now_ms >= last_ms_ + interval_ms_;
  }
  // Prints the line for `sample` at `now_ms`.
  void Print(uint64_t now_ms, const FleetSample& sample);

 private:
  std::FILE* out_;
  uint32_t interval_ms_;
  int watch_pid_;
  uint64_t last_ms_ = 0;
  uint64_t last_handshakes_ = 0;
  uint64_t last_uploads_ = 0;
  ProcessUsage last_usage_;
  bool have_usage_ = false;
};

}  // namespace edgeadmm::fleet
