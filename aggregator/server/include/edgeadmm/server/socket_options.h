// POSIX socket options of the daemon's endpoint.
#pragma once

#include <cstdint>

namespace edgeadmm::server {

// Sets SO_RCVBUF of this process's UDP socket bound to `port` (libcoap
// 4.3.1 does not expose an endpoint's descriptor, so it is found by its
// address). Returns the size the kernel granted (it reports twice the
// request, capped at net.core.rmem_max), or -1 if no socket was found.
int SetUdpReceiveBuffer(uint16_t port, int bytes);

}  // namespace edgeadmm::server
