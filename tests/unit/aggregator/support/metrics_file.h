// Reading the gateway's metrics file (docs/aggregator.md, "Metrics"): the
// Prometheus text the daemon rewrites every [metrics] interval_seconds.
#pragma once

#include <cstdint>
#include <string>

namespace edgeadmm::testing {

// The value on the line of the metrics file at `path` that starts with
// `name` and a space (a counter or gauge, labels included in `name`); -1
// when the file or the line is absent (before the daemon's first write).
int64_t MetricsFileValue(const std::string& path, const std::string& name);

}  // namespace edgeadmm::testing
