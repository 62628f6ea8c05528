// The daemon's endpoint socket: finding it, and its POSIX options.
#pragma once

#include <sys/socket.h>

#include <cstdint>

namespace edgeadmm::server {

// This process's unconnected UDP socket bound to `port`, i.e. the endpoint
// libcoap made (libcoap 4.3.1 does not expose an endpoint's descriptor, so
// it is found by its address); -1 if there is none.
int FindEndpointSocket(uint16_t port);

// Sets SO_RCVBUF of `fd`. Returns the size the kernel granted (it reports
// twice the request, capped at net.core.rmem_max), or -1 on failure.
int SetReceiveBuffer(int fd, int bytes);

// Whether no socket of any process holds `address` now: a probe socket
// binds it without SO_REUSEADDR or SO_REUSEPORT (so it fails on any socket
// already bound there, whatever options that one set) and is closed again.
bool UdpAddressIsFree(const sockaddr* address, socklen_t length);

// Clears SO_REUSEADDR on the bound socket `fd`. On Linux two UDP sockets
// that both set SO_REUSEADDR may bind one address and port, and libcoap
// sets it on every endpoint: without this, any later process (another
// daemon, of any user) could bind the daemon's port and receive part of
// its datagrams. SO_REUSEPORT, which the shards need, stays: only a
// process of the daemon's own user can join with it. False on failure.
bool RefuseLaterReuseAddrBinds(int fd);

}  // namespace edgeadmm::server
