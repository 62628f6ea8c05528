#include "edgeadmm/server/job_router.h"

#include <algorithm>
#include <utility>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::server {
namespace {

bool Enrolled(const rounds::RoundEngine& engine, std::string_view device) {
  return std::binary_search(engine.devices().begin(), engine.devices().end(),
                            device);
}

bool Running(const rounds::RoundEngine& engine) {
  return engine.job().state == jobs::JobState::kRunning;
}

// A protobuf varint at `*at` (advanced past it); false if truncated or
// longer than 10 bytes.
bool ReadVarint(const uint8_t* body, size_t size, size_t* at, uint64_t* out) {
  uint64_t value = 0;
  for (int shift = 0; shift < 70 && *at < size; shift += 7) {
    const uint8_t byte = body[(*at)++];
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *out = value;
      return true;
    }
  }
  return false;
}

}  // namespace

void JobRouter::Set(std::vector<rounds::RoundEngine*> engines) {
  std::sort(engines.begin(), engines.end(),
            [](const rounds::RoundEngine* a, const rounds::RoundEngine* b) {
              return a->job().id < b->job().id;
            });
  engines_ = std::move(engines);
}

Result<std::optional<std::string>> JobRouter::ParseQuery(
    std::string_view query) {
  if (query.empty()) return std::optional<std::string>();
  constexpr std::string_view kKey = wire::kJobQueryKey;
  if (query.substr(0, kKey.size()) != kKey) return Status::InvalidArgument();
  const std::string_view name = query.substr(kKey.size());
  if (!jobs::IsValidJobName(name)) return Status::InvalidArgument();
  return std::optional<std::string>(std::string(name));
}

rounds::RoundEngine* JobRouter::ByJobId(int64_t job_id) const {
  for (rounds::RoundEngine* engine : engines_) {
    if (engine->job().id == job_id) return engine;
  }
  return nullptr;
}

rounds::RoundEngine* JobRouter::ByName(std::string_view name) const {
  for (rounds::RoundEngine* engine : engines_) {
    if (engine->job().config.name == name) return engine;
  }
  return nullptr;
}

rounds::RoundEngine* JobRouter::ForDevice(std::string_view device) const {
  if (engines_.size() == 1) return engines_.front();
  rounds::RoundEngine* waiting = nullptr;  // earliest deadline
  rounds::RoundEngine* running = nullptr;  // lowest id
  rounds::RoundEngine* stopped = nullptr;
  for (rounds::RoundEngine* engine : engines_) {
    if (!Enrolled(*engine, device)) continue;
    if (!Running(*engine)) {
      if (stopped == nullptr) stopped = engine;
      continue;
    }
    if (running == nullptr) running = engine;
    if (engine->AwaitsUpload(device) &&
        (waiting == nullptr ||
         engine->deadline_ms() < waiting->deadline_ms())) {
      waiting = engine;
    }
  }
  if (waiting != nullptr) return waiting;
  if (running != nullptr) return running;
  if (stopped != nullptr) return stopped;
  return engines_.empty() ? nullptr : engines_.front();
}

std::optional<uint64_t> PeekUpdateJobId(const uint8_t* body, size_t size) {
  size_t at = 0;
  while (at < size) {
    uint64_t key = 0;
    if (!ReadVarint(body, size, &at, &key)) return std::nullopt;
    uint64_t value = 0;
    switch (key & 7) {
      case 0:  // varint
        if (!ReadVarint(body, size, &at, &value)) return std::nullopt;
        if ((key >> 3) == 2) return value;
        break;
      case 1:  // 64-bit
        if (size - at < 8) return std::nullopt;
        at += 8;
        break;
      case 2:  // length-delimited
        if (!ReadVarint(body, size, &at, &value) || value > size - at) {
          return std::nullopt;
        }
        at += static_cast<size_t>(value);
        break;
      case 5:  // 32-bit
        if (size - at < 4) return std::nullopt;
        at += 4;
        break;
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace edgeadmm::server
