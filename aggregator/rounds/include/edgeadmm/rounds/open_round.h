// OpenRound: the round in flight, kept in memory until it commits; under
// BarrierRounds::ResumesOpenRound its accepted uploads are also in the store
// and a restarted engine rebuilds it from there
// (RoundStore::ResumableOpenRound).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace edgeadmm::rounds {

struct OpenRound {
  bool has_value = false;
  int64_t round_id = 0;
  int64_t deadline_ms = 0;
  std::vector<bool> in_cohort;  // by device index; secret
  size_t cohort_size = 0;
  int64_t retries = 0;  // barrier rounds: deadlines extended so far
  // Rebuilt from the store after a restart: the first Advance gives it a
  // fresh deadline (and takes revoked members out) before anything else.
  bool awaiting_restart_deadline = false;
  // An accepted upload as the commit needs it: its float32 bytes, decoded
  // only when the round commits, and the SHA-256 of what a retransmission
  // repeats (UploadDigest of Upload::fingerprint_or_vector; the store keeps
  // the same digest). A round holds one per cohort member, about 0.5 KiB at
  // a9a's 123 features.
  struct Accepted {
    std::vector<uint8_t> payload;  // float32 LE, as stored
    std::vector<uint8_t> fingerprint_digest;
  };
  std::map<size_t, Accepted> accepted;  // by device index
  // When the last cohort member's upload was accepted (its Submit's time;
  // 0: not complete, or completed from the store).
  int64_t completed_ms = 0;

  // True when every cohort member has uploaded.
  bool complete() const { return has_value && accepted.size() == cohort_size; }
};

}  // namespace edgeadmm::rounds
