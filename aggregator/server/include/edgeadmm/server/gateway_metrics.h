// GatewayMetrics: the daemon's counters for operators, rendered in the
// Prometheus text exposition format (version 0.0.4) and written to a file
// that the node exporter's textfile collector reads (MetricsFile). No
// listening socket: the gateway's only port stays the DTLS one.
//
// Every series has a bounded label set (the four resources and "other",
// the response code, a fixed list of session events), so the memory is
// fixed whatever the network sends. The metric names are listed in
// docs/aggregator.md, "Metrics".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "edgeadmm/server/handshake_admission.h"

namespace edgeadmm::server {

// What a loaded job looks like at a scrape (JobHost fills it).
struct JobGauges {
  bool has_job = false;
  std::string name;
  int64_t iteration = 0;       // committed rounds
  int64_t rounds = 0;          // the job's target
  double central_epsilon = 0;  // the job's charged central ε
  double delta = 0;            // the δ it is stated at
  std::string accountant;      // "pld" or "rdp"
  bool round_open = false;
};

class GatewayMetrics {
 public:
  // Session events as the CoAP server sees them.
  enum class SessionEvent {
    kHandshakeStarted,  // a new DTLS server session
    kHandshakeDone,     // the handshake completed
    kClosed,            // DTLS closed or failed (handshaking or not)
    kSessionFreed,      // libcoap freed a session
    kCount
  };

  // One response to a request on `resource` (its path; others count as
  // "other") with `code` (class·32 + detail, as on the wire).
  void CountResponse(std::string_view resource, uint8_t code);
  void CountSession(SessionEvent event);
  // The server's shards (ServerOptions::shards, at most kMaxShards) and the
  // DTLS sessions started on each: how the kernel spreads the devices.
  static constexpr size_t kMaxShards = 64;
  void set_shards(size_t shards) {
    shards_ = shards < kMaxShards ? shards : kMaxShards;
  }
  void CountShardSession(size_t shard) {
    if (shard < shards_) ++shard_sessions_[shard];
  }
  // Sessions alive now (started and not yet freed).
  int64_t live_sessions() const { return live_sessions_; }
  // Devices connected now (RevocationWatch::devices), set before Render.
  void set_devices_connected(size_t devices) { devices_connected_ = devices; }
  // CoAP RSTs received (LibcoapResetsReceived), set before Render.
  void set_coap_resets(uint64_t resets) { coap_resets_ = resets; }
  // The server's state lock so far (TimedLock), set before Render.
  void set_state_lock(uint64_t held_ns, uint64_t held_cpu_ns,
                      uint64_t waited_ns) {
    lock_held_ns_ = held_ns;
    lock_held_cpu_ns_ = held_cpu_ns;
    lock_waited_ns_ = waited_ns;
  }
  // The handshake admission's verdicts so far, set before Render.
  void set_admission(const HandshakeAdmission::Counts& counts) {
    admission_ = counts;
  }

  // One WAL sync of the loop (group commit) made `commits` commits durable.
  void CountGroupCommit(uint64_t commits) {
    ++group_syncs_;
    group_commits_ += commits;
  }
  // Held datagrams dropped so far (HeldSends::dropped), set after a pass.
  void set_held_sends_dropped(uint64_t dropped) {
    held_sends_dropped_ = dropped;
  }
  // A round of the running job ended: committed after `seconds` open, or
  // discarded (deadline with too few uploads, a failed commit).
  void CountRound(bool committed, double seconds);
  // A round whose whole cohort had uploaded committed, durably, `seconds`
  // after its last upload was accepted (the commit runs in the loop's next
  // tick; its WAL sync ends that tick).
  void CountCommitDelay(double seconds) {
    commit_delay_.Observe(kCommitDelayBuckets, seconds);
  }
  // A trusted-aggregator release held to its deadline + delay, or one that
  // came later than that (an overrun: its time was not padded).
  void CountReleaseHold(bool overran) {
    ++(overran ? release_overruns_ : release_holds_);
  }

  // The exposition text: every metric with its HELP and TYPE lines.
  std::string Render(const JobGauges& job) const;
  // The same with a sample per loaded job (several jobs at once).
  std::string Render(const std::vector<JobGauges>& jobs) const;

  // Upper bounds of the duration histograms' buckets, in seconds.
  using Buckets = std::array<double, 9>;
  static constexpr Buckets kRoundBuckets = {0.5, 1, 2, 5, 10, 30, 60, 120, 300};
  static constexpr Buckets kCommitDelayBuckets = {0.01, 0.05, 0.1, 0.5, 1,
                                                  2,    5,    10,  30};

 private:
  // A histogram of durations over fixed buckets, with the longest seen.
  struct Durations {
    std::array<uint64_t, std::tuple_size<Buckets>::value> buckets{};
    uint64_t count = 0;
    double sum = 0;
    double max = 0;
    void Observe(const Buckets& bounds, double seconds);
  };
  // `name`'s histogram family (and `name`_max, a gauge) for `durations`.
  static void RenderDurations(std::string& out, const std::string& name,
                              const char* help, const Buckets& bounds,
                              const Durations& durations);
  // The DTLS sessions, devices, admission and shard families.
  void RenderSessions(std::string& out) const;

  static constexpr int kResources = 5;  // task, update, model, status, other
  static constexpr int kCodes = 256;
  std::array<std::array<uint64_t, kCodes>, kResources> responses_{};
  std::array<uint64_t, static_cast<int>(SessionEvent::kCount)> sessions_{};
  int64_t live_sessions_ = 0;
  size_t devices_connected_ = 0;
  uint64_t coap_resets_ = 0;
  uint64_t lock_held_ns_ = 0;
  uint64_t lock_held_cpu_ns_ = 0;
  uint64_t lock_waited_ns_ = 0;
  HandshakeAdmission::Counts admission_;
  size_t shards_ = 1;
  std::array<uint64_t, kMaxShards> shard_sessions_{};
  uint64_t group_syncs_ = 0;
  uint64_t group_commits_ = 0;
  uint64_t held_sends_dropped_ = 0;
  uint64_t rounds_committed_ = 0;
  uint64_t rounds_discarded_ = 0;
  uint64_t release_holds_ = 0;
  uint64_t release_overruns_ = 0;
  Durations round_durations_;
  Durations commit_delay_;
};

}  // namespace edgeadmm::server
