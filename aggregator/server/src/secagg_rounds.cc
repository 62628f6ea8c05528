#include "edgeadmm/server/secagg_rounds.h"

#include <algorithm>

#include "edgeadmm/status.h"

namespace edgeadmm::server {
namespace {

using secure_aggregation::SecAggPhase;

// A phase frame's header: version (1), phase (1), round id (8, LE).
constexpr size_t kHeaderBytes = 10;

uint64_t HeaderRoundId(const uint8_t* body, size_t size) {
  if (body == nullptr || size < kHeaderBytes) return 0;
  uint64_t id = 0;
  for (int i = 7; i >= 0; --i) id = (id << 8) | body[2 + i];
  return id;
}

}  // namespace

SecAggRounds::SecAggRounds(size_t slots) {
  for (size_t i = 0; i < std::max<size_t>(slots, 1); ++i) {
    slots_.push_back(std::make_unique<SecAggService>());
  }
}

SecAggService* SecAggRounds::Find(uint64_t round_id) const {
  if (round_id == 0) return nullptr;
  for (const auto& s : slots_) {
    if (s->round_id() == round_id) return s.get();
  }
  return nullptr;
}

SecAggService* SecAggRounds::Holding(std::string_view identity) const {
  for (const auto& s : slots_) {
    if (s->Holds(identity)) return s.get();
  }
  return nullptr;
}

bool SecAggRounds::AnyRound() const {
  for (const auto& s : slots_) {
    if (s->round() != nullptr) return true;
  }
  return false;
}

Response SecAggRounds::Round(std::string_view identity,
                             uint64_t round_id) const {
  if (round_id != 0) {
    // The named round only: a device never joins a round other than the
    // one its input was computed for.
    if (const SecAggService* named = Find(round_id)) {
      return named->Round(identity);
    }
    return ErrorResponse(Status::NotFound(),
                         "the secure aggregation round is not running", 0, 0);
  }
  const SecAggService* joinable = nullptr;
  for (const auto& s : slots_) {
    if (!s->Holds(identity) || s->phase() != SecAggPhase::kAdvertise) continue;
    if (joinable != nullptr) {
      return ErrorResponse(Status::InvalidArgument(),
                           "device in several secure aggregation rounds: "
                           "name the round (v1/secagg/round?round=<id>)",
                           0, 0);
    }
    joinable = s.get();
  }
  if (joinable != nullptr) return joinable->Round(identity);
  // No joinable round: the service's own refusal (4.12, 4.03, 4.04).
  if (const SecAggService* held = Holding(identity)) {
    return held->Round(identity);
  }
  return Outside();
}

Response SecAggRounds::Outside() const {
  return AnyRound() ? ErrorResponse(Status::PermissionDenied(),
                                    "device not in the round", 0, 0)
                    : ErrorResponse(Status::NotFound(),
                                    "no secure aggregation round", 0, 0);
}

Response SecAggRounds::Handle(int phase, std::string_view identity,
                              const uint8_t* body, size_t size,
                              int64_t now_ms) {
  SecAggService* target = Find(HeaderRoundId(body, size));
  if (target == nullptr) target = Holding(identity);
  if (target == nullptr) return Outside();
  return target->Handle(phase, identity, body, size, now_ms);
}

size_t SecAggRounds::MaxBody(int phase) const {
  size_t most = 0;
  for (const auto& s : slots_) most = std::max(most, s->MaxBody(phase));
  return most;
}

void SecAggRounds::Tick(int64_t now_ms) {
  for (const auto& s : slots_) s->Tick(now_ms);
}

}  // namespace edgeadmm::server
