// FleetCounters: DeviceClientCounters summed over many clients (and over the
// restarts of one client), 64-bit so that a long run of a large fleet cannot
// wrap. The one place that knows every counter's name.
#pragma once

#include <cstdint>

#include "edgeadmm/device_client.h"

namespace edgeadmm::fleet {

struct FleetCounters {
  uint64_t tasks_received = 0;
  uint64_t tasks_invalid = 0;
  uint64_t steps_computed = 0;
  uint64_t steps_refused = 0;
  uint64_t upload_attempts = 0;
  uint64_t uploads_accepted = 0;
  uint64_t uploads_duplicate = 0;
  uint64_t uploads_stale = 0;
  uint64_t uploads_rejected = 0;
  uint64_t resumed_uploads = 0;
  uint64_t transport_errors = 0;
  uint64_t storage_errors = 0;
  uint64_t reports_sent = 0;

  // Adds a client's counters (DeviceClientCounters) or another sum.
  template <typename Counters>
  FleetCounters& operator+=(const Counters& c) {
    tasks_received += c.tasks_received;
    tasks_invalid += c.tasks_invalid;
    steps_computed += c.steps_computed;
    steps_refused += c.steps_refused;
    upload_attempts += c.upload_attempts;
    uploads_accepted += c.uploads_accepted;
    uploads_duplicate += c.uploads_duplicate;
    uploads_stale += c.uploads_stale;
    uploads_rejected += c.uploads_rejected;
    resumed_uploads += c.resumed_uploads;
    transport_errors += c.transport_errors;
    storage_errors += c.storage_errors;
    reports_sent += c.reports_sent;
    return *this;
  }
};

}  // namespace edgeadmm::fleet
