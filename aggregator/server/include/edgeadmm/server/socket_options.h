// The daemon's endpoint socket: finding it, and its POSIX options.
#pragma once

#include <cstdint>

namespace edgeadmm::server {

// This process's unconnected UDP socket bound to `port`, i.e. the endpoint
// libcoap made (libcoap 4.3.1 does not expose an endpoint's descriptor, so
// it is found by its address); -1 if there is none.
int FindEndpointSocket(uint16_t port);

// Sets SO_RCVBUF of `fd`. Returns the size the kernel granted (it reports
// twice the request, capped at net.core.rmem_max), or -1 on failure.
int SetReceiveBuffer(int fd, int bytes);

}  // namespace edgeadmm::server
