// SecureRoundDriver: couples the engines of secure-aggregation jobs to the
// daemon's SecAggRounds (docs/aggregator.md, "Secure-aggregation
// rounds"). When an engine opens a secure round the driver starts a free
// slot's SecAgg+ round on its cohort (the plan's k, s, b, mask length
// and survivor floor, a fresh random graph seed, phase_seconds per phase);
// when the phases end it decodes the unmasked sum (DecodeDdgSum) and hands
// it to RoundEngine::CommitSecureSum with the survivors (a sum it cannot
// decode or hand over goes to DiscardSecureSum: once unmasked, the round
// is charged whatever happens), or, when the phases aborted before any sum
// was unmasked, calls AbortSecureRound; the engine then opens its next
// round as usual. Before anything can be unmasked (the service's
// before-unmask hook) the engine stores the survivors' charges
// (RoundEngine::ChargeSecureRound); when it cannot, the phases abort.
//
// At most SecAggRounds::slots() rounds run at once (the daemon's
// server.max_secure_rounds), one per slot, each round's before-unmask hook
// charging its own job's engine. A secure round beyond the cap is held (it
// waits, open, logged once) until a slot is free; waiting rounds start in
// job id order.
//
// A restart resumes the open rounds (docs/aggregator.md, "A restart
// resumes a secure round"): with a log prefix each job's round log is the
// file <prefix><job id> (SecAggRoundLog, written before each answer), and
// an engine's round rebuilt from the store (SecureRound::resumed) gets its
// phases back from it (SecAggService::Recover) with the same cohort order
// and accepted messages; the engine's record keeps the rotation seed and
// the charges. The round aborts instead (AbortSecureRound, charges kept)
// when there is no log prefix, the restart came past the round's
// deadline, or the log is missing, damaged or another round's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/rounds/secure_round.h"
#include "edgeadmm/server/secagg_rounds.h"

namespace edgeadmm::server {

class SecureRoundDriver {
 public:
  // `rounds` must outlive the driver.
  explicit SecureRoundDriver(SecAggRounds& rounds);
  // The services' hooks hold this driver.
  SecureRoundDriver(const SecureRoundDriver&) = delete;
  SecureRoundDriver& operator=(const SecureRoundDriver&) = delete;

  // Ticks the services, ends each round it drove whose phases ended, and
  // starts the waiting rounds of `engines` (lowest job id first) in the
  // free slots.
  void Tick(const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms);

  // Each job's round log is <prefix><job id>; empty (the default): no
  // log, and a restart aborts the open rounds.
  void set_log_prefix(std::string prefix) { log_prefix_ = std::move(prefix); }

  // The job whose round slot `slot` runs (0: none).
  int64_t driven_job(size_t slot = 0) const { return slots_[slot].job_id; }
  // How many slots run a round.
  size_t running() const;

 private:
  struct Slot {
    int64_t job_id = 0;
    // job_id's engine as of the last Tick (null: none).
    rounds::RoundEngine* engine = nullptr;
    std::optional<rounds::SecureRound> round;
  };
  rounds::RoundEngine* Find(const std::vector<rounds::RoundEngine*>& engines,
                            int64_t job_id) const;
  void Finish(size_t slot, int64_t now_ms);
  // Slot `slot`'s before-unmask hook: its engine charges `survivors`
  // (indices in the cohort) or the service aborts the phases.
  host::Error Charge(size_t slot, const std::vector<uint32_t>& survivors);
  void StartNext(const std::vector<rounds::RoundEngine*>& engines,
                 int64_t now_ms);
  // Starts `engine`'s open round in free slot `slot`.
  void Start(size_t slot, rounds::RoundEngine& engine, int64_t now_ms);
  // Start for a round rebuilt after a restart: its phases from its log, or
  // the round aborts.
  void Resume(size_t slot, rounds::RoundEngine& engine, int64_t now_ms);
  std::string LogPath(int64_t job_id) const;
  // Logs once that `engine`'s round waits for a free slot.
  void LogHeld(const rounds::RoundEngine& engine);

  SecAggRounds* rounds_;
  std::string log_prefix_;
  bool drbg_ready_ = false;
  Drbg drbg_;  // graph seeds and the services' own randomness
  std::vector<Slot> slots_;
  // The jobs whose open round waits for a slot: since when (ms), and
  // whether that was logged. The longest-waiting round starts first.
  struct Waiting {
    int64_t since_ms = 0;
    bool logged = false;
  };
  std::map<int64_t, Waiting> waiting_;
};

}  // namespace edgeadmm::server
