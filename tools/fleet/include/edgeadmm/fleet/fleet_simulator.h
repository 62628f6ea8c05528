// FleetSimulator: N virtual devices in one process, each with its own
// DeviceClient, transport session, storage (a state directory or RAM) and
// data shard, driven by one single-threaded event loop in virtual time.
//
// The devices talk to an in-process FakeAggregator over LoopbackTransports
// (a simulated lossy CoAP/DTLS link); a run over the real daemon needs the
// gateway's aggregator (see docs/device.md). Knobs: datagram loss, device
// dropout per round, and reboots between persisting and uploading. All
// devices share one LocalTrainer, its workspace and the compute scratch
// (they compute one at a time), so a virtual device costs only its client
// buffers, its record and its link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "edgeadmm/dataio/dataset_source.h"
#include "edgeadmm/host/error.h"

namespace edgeadmm::fleet {

// dataio/include/edgeadmm/dataio/dataset_source.h
using ::edgeadmm::DataFormat;

struct FleetConfig {
  size_t devices = 100;
  std::string data_path;  // LIBSVM or Adult CSV, plain or .xz
  DataFormat format = DataFormat::kLibsvm;
  size_t dim = 123;  // LIBSVM dimension (Adult: fixed 105)
  // Applied after loading, as the validator does (dataset_source.h).
  RowNormalization normalization = RowNormalization::kNone;
  uint32_t rounds = 5;
  // Link and device faults.
  double loss = 0.0;     // probability of losing each datagram
  double dropout = 0.0;  // probability a device is offline for a round
  double reboot = 0.0;   // probability a device loses power between
                         // persisting and uploading in a round
  uint8_t max_retransmit = 4;
  uint64_t seed = 1;
  // Per-device state directories <state_dir>/<device id>/ (created); empty:
  // RAM storage.
  std::string state_dir;
  // Deterministic per-device entropy (TestEntropy: UNSAFE, reproducible
  // runs); otherwise getrandom(2).
  bool deterministic_entropy = false;
  // Paper 002 Alg. 3 job parameters and the local budget of every device.
  double lambda = 0.5;
  double gamma = 1.0;
  double clip = 1.0;
  double sigma = 1.0;
  double epsilon_budget = std::numeric_limits<double>::infinity();
  double delta = 1e-5;
  // Virtual time: a round closes when every online device's upload was
  // accepted or after round_deadline_ms.
  uint32_t round_deadline_ms = 120000;
  uint32_t tick_ms = 100;
};

struct RoundLine {
  uint64_t round = 0;
  size_t online = 0;
  size_t accepted = 0;
  double accuracy = 0;  // of z on all records, after the round
  double seconds = 0;   // wall time of the round
};

struct FleetReport {
  size_t devices = 0;
  size_t dim = 0;
  uint32_t rounds = 0;
  std::vector<RoundLine> lines;
  // Server side.
  uint64_t accepted = 0;
  uint64_t duplicates = 0;
  uint64_t conflicts = 0;
  uint64_t stale = 0;
  uint64_t rejected = 0;
  uint64_t reports = 0;
  // Device side (summed over every client instance, reboots included).
  uint64_t steps_computed = 0;
  uint64_t upload_attempts = 0;
  uint64_t uploads_acknowledged = 0;  // first copy or duplicate receipt
  uint64_t resumed_uploads = 0;
  uint64_t reboots = 0;
  uint64_t transport_errors = 0;
  // Link.
  uint64_t datagrams = 0;
  uint64_t datagrams_lost = 0;
  uint64_t bytes = 0;
  // Memory and time.
  double setup_seconds = 0;
  double run_seconds = 0;
  size_t rss_before_bytes = 0;
  size_t rss_after_bytes = 0;
  double bytes_per_device = 0;  // RSS growth / devices
  // Exactly-once: every computed step was accepted once (no conflicts, no
  // step without an accepted upload) and every accepted upload computed once.
  bool exactly_once = false;
};

// Runs the fleet. INVALID_ARGUMENT for a bad config (or more devices than
// records), NOT_FOUND / DATA_LOSS / UNAVAILABLE for the data file or state
// dirs; the message says which. One progress line per round goes to
// `progress` (may be null).
host::ErrorOr<FleetReport> RunFleet(const FleetConfig& config,
                                    std::FILE* progress);

// Resident set size of this process in bytes (0 if unknown).
size_t ResidentBytes();

}  // namespace edgeadmm::fleet
