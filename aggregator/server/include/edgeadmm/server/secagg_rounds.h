// SecAggRounds: the daemon's SecAgg+ rounds served at once on v1/secagg/*,
// one SecAggService per slot, a fixed number of slots (the daemon's
// server.max_secure_rounds; docs/aggregator.md, "Secure-aggregation
// rounds"). SecureRoundDriver starts a job's round in a free slot.
//
// Routing (docs/protocol.md, "Secure aggregation phases"): a phase 1..4
// frame goes to the slot whose round has the frame header's round id; a
// frame too short for a header, or naming no served round, goes to a slot
// whose cohort holds the identity (its service refuses it as before: 4.00,
// or 4.04 for another round id), else 4.03 (rounds run, none holds the
// identity) or 4.04 (no round). Round ids are unique across the slots
// (SecureRoundDriver makes them from the job id and the job's round id).
// Phase 0 (GET v1/secagg/round) names the round the device computed its
// input for (`?round=<id>`, as DeviceClient does): that round's answer (the
// service refuses a device outside its cohort, or a round past phase 1),
// 4.04 when no slot runs it (it ended, or has not started). Without a
// round: the one joinable round (phase 1 open) whose cohort holds the
// identity; 4.00 when several do. Each slot keeps its own per-device byte
// budget, so one round's traffic cannot exhaust another's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/server/secagg_service.h"

namespace edgeadmm::server {

class SecAggRounds {
 public:
  // `slots` >= 1 (the daemon's config checks the range).
  explicit SecAggRounds(size_t slots);

  size_t slots() const { return slots_.size(); }
  SecAggService& slot(size_t i) { return *slots_[i]; }
  const SecAggService& slot(size_t i) const { return *slots_[i]; }

  // Phase 0 for `identity`; `round_id` 0: not named by the device.
  Response Round(std::string_view identity, uint64_t round_id) const;
  // Phases 1..4, routed by the frame's round id.
  Response Handle(int phase, std::string_view identity, const uint8_t* body,
                  size_t size, int64_t now_ms);
  // The largest body a phase takes in any served round (0: none): the
  // Block1 bound before the frame's round id is known.
  size_t MaxBody(int phase) const;
  // Ticks every slot's service.
  void Tick(int64_t now_ms);

 private:
  // The slot serving `round_id` (a started round), else null.
  SecAggService* Find(uint64_t round_id) const;
  // The first slot whose round's cohort holds `identity`, else null.
  SecAggService* Holding(std::string_view identity) const;
  bool AnyRound() const;
  // No slot holds the identity: 4.03 while a round runs, else 4.04.
  Response Outside() const;

  std::vector<std::unique_ptr<SecAggService>> slots_;
};

}  // namespace edgeadmm::server
