// SecAggService: one SecAgg+ round (secure_aggregation::SecAggRound) served
// over the v1/secagg resources, phase 0's GET and the four phases' POSTs
// (docs/protocol.md, "Secure aggregation phases"), as a pure function from
// (phase resource, DTLS identity, body, clock) to a CoAP response, like
// RequestHandler; coap_resources.cc calls it after the request budget and shape
// checks.
//
// The round's cohort is a list of device identities: identity i is device
// i of the round. Each phase has a deadline (opened + phase_ms); Tick
// closes a phase at its deadline, and a phase closes early once every
// device still in the round has answered it. A device that misses a phase
// is a dropout (SecAggRound's rules decide whether the round goes on).
//
// Phase 0 (Round): 2.05 with the round's parameters and the identity's
// index in the cohort (phase_frames.h); 4.04 with no round, 4.03 for an
// identity outside the cohort, 4.12 once phase 1 closed (the device can
// no longer join).
//
// Phases 1..4: 2.04 (no body) when the message is accepted and its phase is
// still open; the device sends the identical message again, and once the
// phase is closed an identical resend is answered with the phase's answer
// frame (2.05; phase 4: 2.04 without body). Refused: 4.03 for an identity
// outside the cohort, 4.04 with no round or another round id, 4.00 for a
// frame that does not decode or names another phase than its resource,
// 4.12 for a phase not open (also a message different from the accepted
// one after its phase closed), 4.09 for a different message in an open
// phase, 4.29 for the round's per-device byte budget, 5.00 once aborted.
// When the masked inputs' phase closes, the before-unmask hook (if set) gets
// its survivors before any answer lets a device reveal its shares; an error
// from it aborts the round, nothing unmasked (the daemon stores the
// survivors' privacy charges there: docs/privacy.md, "Unmasked means
// charged").
// Only the SHA-256 of each accepted body is kept beside SecAggRound's own
// state, which holds masked inputs only; the sum is the round's result.
// Nothing is written to the database. With a log path (set_log_path),
// every accepted message and phase close is appended to a SecAggRoundLog
// before it is answered (a close that cannot be logged aborts the round),
// and Recover() after a restart rebuilds the round
// from it (deadlines restart from the recovery); the log is deleted when
// the round ends or aborts. Without one, a restart loses the round (its
// devices then get 4.04 and abort). The daemon keeps one log per job
// beside its SQLite database (SecureRoundDriver). Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/secure_aggregation/secagg_round.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/server/secagg_round_log.h"

namespace edgeadmm::server {

class SecAggService {
 public:
  // Starts a round (replacing any previous one). `random` must outlive
  // it. INVALID_ARGUMENT for a cohort of another size than params.devices,
  // a repeated identity, or phase_ms <= 0; SecAggRound::Init's errors.
  host::Error Start(const secure_aggregation::SecAggRoundParams& params,
                    std::vector<std::string> identities, int64_t phase_ms,
                    int64_t now_ms, RandomByteSource& random);

  // Called with the survivors (device indices, increasing) as the masked
  // inputs' phase closes, a close Recover replays from the log included:
  // the log can hold a close whose hook's store writes a crash lost (a
  // write batch not yet committed), so the hook must store what is missing
  // and accept what is stored. An error aborts the round unmasked. Null:
  // none.
  using BeforeUnmask =
      std::function<host::Error(const std::vector<uint32_t>& survivors)>;
  void set_before_unmask(BeforeUnmask hook) {
    before_unmask_ = std::move(hook);
  }

  // The round log's file; empty (the default): none.
  void set_log_path(std::string path) { log_path_ = std::move(path); }
  const std::string& log_path() const { return log_path_; }
  // Rebuilds the round from the log (SecAggRoundLog::Read's errors, and
  // Start's), its phases' deadlines now_ms + phase_ms; an open phase every
  // expected device answered closes at once (the masked inputs' close
  // calls the before-unmask hook: set it first).
  host::Error Recover(int64_t now_ms, RandomByteSource& random);

  // Forgets the round (devices then get 4.04) and deletes its log.
  void Drop();

  // Phase 0: the open round for `identity` (GET v1/secagg/round).
  Response Round(std::string_view identity) const;

  // `phase`: 1..4, the resource the request came to.
  Response Handle(int phase, std::string_view identity, const uint8_t* body,
                  size_t size, int64_t now_ms);

  // Closes the open phase when its deadline passed.
  void Tick(int64_t now_ms);
  // The devices (indices, increasing) the open phase still waits for: in
  // the round at its start and not yet answered it. Empty when no phase
  // is open.
  std::vector<uint32_t> Awaited() const;

  secure_aggregation::SecAggPhase phase() const {
    return round_ ? round_->phase()
                  : secure_aggregation::SecAggPhase::kNotStarted;
  }
  // After the round: the sum mod 2^b, or the reason it aborted.
  const std::optional<std::vector<uint32_t>>& sum() const { return sum_; }
  const host::Error& abort_reason() const { return aborted_; }
  // Whether a started round's cohort holds `identity`; the round's id
  // (0: none).
  bool Holds(std::string_view identity) const {
    return round_ && index_.count(std::string(identity)) != 0;
  }
  uint64_t round_id() const { return round_ ? round_->params().round_id : 0; }
  // The started round's cohort (identity i is device i).
  const std::vector<std::string>& identities() const { return identities_; }
  // What the gateway holds (the audit of tests).
  const secure_aggregation::SecAggRound* round() const { return round_.get(); }
  // The largest request body a phase takes for this round (0: no round).
  size_t MaxBody(int phase) const;

 private:
  using Digest = std::array<uint8_t, 32>;
  host::Error Submit(int phase, uint32_t device, ConstByteSpan body);
  Response Answer(int phase, uint32_t device, uint64_t round_id) const;
  void Close(int64_t now_ms);
  bool AllAnswered(int phase) const;
  // Whether `phase` (1..4) expects an answer of `device` it does not have.
  bool Awaits(int phase, size_t device) const;
  // The before-unmask hook on the closed masked-input phase; an error aborts.
  host::Error BeforeUnmasking();

  std::unique_ptr<secure_aggregation::SecAggRound> round_;
  std::vector<std::string> identities_;
  std::unordered_map<std::string, uint32_t> index_;  // identity -> device
  RandomByteSource* random_ = nullptr;
  int64_t phase_ms_ = 0;
  int64_t deadline_ms_ = 0;
  std::array<std::vector<std::optional<Digest>>, 4> accepted_;
  std::optional<std::vector<uint32_t>> sum_;
  BeforeUnmask before_unmask_;
  std::string log_path_;
  SecAggRoundLog log_;
  bool replaying_ = false;
  host::Error aborted_;
};

}  // namespace edgeadmm::server
