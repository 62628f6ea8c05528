// SecureRoundDriver: couples the engines of secure-aggregation jobs to the
// daemon's one SecAggService (docs/aggregator.md, "Secure-aggregation
// rounds"). When an engine opens a secure round the driver starts the
// service's SecAgg+ round on its cohort (the plan's k, s, b, mask length
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
// One service: one secure-aggregation round at a time per daemon. While one
// runs, another job's secure round is held (it waits, open, logged once)
// until the service is free. A restart loses the open round: the engine
// marks it lost (with the charges stored before unmasking, if any), the
// devices get 4.04 on the phases and abort.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/rounds/secure_round.h"
#include "edgeadmm/server/secagg_service.h"

namespace edgeadmm::server {

class SecureRoundDriver {
 public:
  // `secagg` must outlive the driver.
  explicit SecureRoundDriver(SecAggService& secagg) : secagg_(&secagg) {
    secagg.set_before_unmask([this](const std::vector<uint32_t>& survivors) {
      return Charge(survivors);
    });
  }
  // The service's hook holds this driver.
  SecureRoundDriver(const SecureRoundDriver&) = delete;
  SecureRoundDriver& operator=(const SecureRoundDriver&) = delete;

  // Ticks the service, ends the round it drove when its phases ended, and
  // starts the round of the lowest job id among `engines` that waits.
  void Tick(const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms);

  // The job whose round the service runs (0: none).
  int64_t driven_job() const { return job_id_; }

 private:
  rounds::RoundEngine* Find(const std::vector<rounds::RoundEngine*>& engines,
                            int64_t job_id) const;
  void Finish(rounds::RoundEngine& engine, int64_t now_ms);
  // The before-unmask hook: the engine charges `survivors` (indices in the
  // cohort) or the service aborts the phases.
  host::Error Charge(const std::vector<uint32_t>& survivors);
  void StartNext(const std::vector<rounds::RoundEngine*>& engines,
                 int64_t now_ms);

  SecAggService* secagg_;
  bool drbg_ready_ = false;
  Drbg drbg_;  // graph seeds and the service's own randomness
  int64_t job_id_ = 0;
  // job_id_'s engine as of the last Tick (null: none).
  rounds::RoundEngine* engine_ = nullptr;
  std::optional<rounds::SecureRound> round_;
  int64_t held_logged_ = 0;  // the job last logged as held
};

}  // namespace edgeadmm::server
