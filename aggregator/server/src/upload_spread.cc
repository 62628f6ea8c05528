#include "edgeadmm/server/upload_spread.h"

#include <algorithm>
#include <cmath>

#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::server {

uint32_t UploadSpreadMs(const jobs::JobConfig& config, int64_t n,
                        uint32_t us_per_device, uint32_t deadline_ms) {
  const double expected =
      config.sampling == jobs::SamplingScheme::kFixed
          ? static_cast<double>(config.m)
          : std::ceil(config.q * static_cast<double>(std::max<int64_t>(n, 0)));
  const double spread_ms = expected * us_per_device / 1000.0;
  const uint32_t cap = std::min(deadline_ms / 4, wire::kMaxUploadSpreadMs);
  return spread_ms >= cap ? cap : static_cast<uint32_t>(spread_ms);
}

uint32_t SecurePhaseSpreadWindowMs(const jobs::JobConfig& config,
                                   uint32_t deadline_ms) {
  const double phase_ms = config.secure_aggregation.phase_seconds * 1000.0;
  if (!(phase_ms > 0)) return 0;
  return phase_ms >= deadline_ms ? deadline_ms
                                 : static_cast<uint32_t>(phase_ms);
}

}  // namespace edgeadmm::server
