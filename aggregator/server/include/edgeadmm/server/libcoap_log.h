// libcoap's log lines through the daemon's logger: one format and one
// stream, at the daemon's levels (libcoap's error and above as errors, its
// warnings as warnings).
//
// libcoap 4.3.1 logs every RST it receives at LOG_ALERT ("got RST for
// mid=..."). A device that no longer observes v1/task (its job ended, or it
// registered again with a new token) answers a notification with an RST,
// as RFC 7641 section 3.6 has it: one alert line per device each time a
// job of a large fleet ended. Those lines are counted
// (LibcoapResetsReceived, the edgeadmm_coap_resets_total metric) and logged
// at debug level only.
#pragma once

#include <cstdint>

namespace edgeadmm::server {

// Installs the route (process-wide, as libcoap's log handler is).
void RouteLibcoapLog();
// RSTs libcoap has received since the process started (any thread).
uint64_t LibcoapResetsReceived();

}  // namespace edgeadmm::server
