// EndpointReadFilter: puts a HandshakeAdmission between the daemon's DTLS
// endpoint socket and libcoap.
//
// libcoap 4.3.1 has no hook between reading a datagram and allocating a
// session for it (its network_read is internal), and it reads server
// endpoints with recvmsg(2). So the server library defines recvmsg: linked
// into the daemon, that definition is found before libc's (libcoap3 is a
// shared library). For a socket attached here it reads each datagram once,
// into libcoap's buffers, and asks the admission: one that passes is
// libcoap's as read; one refused is dropped (the HelloVerifyRequest sent
// if asked) and the next is read over it. Every other socket
// goes straight to the next recvmsg (libc's, or a sanitizer's interceptor).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/server/handshake_admission.h"
#include "edgeadmm/status.h"

namespace edgeadmm::server {

class EndpointReadFilter {
 public:
  // Datagrams consumed per recvmsg call at most before libcoap gets its
  // answer ("nothing to read"), so one call stays short under a flood.
  static constexpr int kMaxConsumedPerRead = 64;
  // Sockets attached at once in a process: a daemon's shards (at most
  // GatewayMetrics::kMaxShards), with room for a test's few servers.
  static constexpr size_t kMaxAttached = 128;

  // Judges every datagram read from `fd` with `admission` (which must
  // outlive the attachment; used on the thread that runs libcoap's I/O).
  // INTERNAL if this process's recvmsg is not the filter's (the linker did
  // not interpose it): the defence would silently be off;
  // RESOURCE_EXHAUSTED if kMaxAttached sockets are attached.
  static Status Attach(int fd, HandshakeAdmission* admission);
  static void Detach(int fd);
};

}  // namespace edgeadmm::server
