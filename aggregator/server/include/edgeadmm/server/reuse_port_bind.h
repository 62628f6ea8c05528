// ReusePortBinds: the endpoints of the daemon's shards share one UDP port
// (SO_REUSEPORT), so the kernel spreads the devices over several libcoap
// contexts by a hash of each datagram's addresses and ports.
//
// libcoap 4.3.1 creates and binds an endpoint's socket inside
// coap_new_endpoint, setting only SO_REUSEADDR, and exposes no descriptor.
// SO_REUSEPORT must be set before bind(2) for the socket to join the port's
// group, so the server library defines bind (as it defines recvmsg,
// endpoint_read_filter.h): while a ReusePortBinds is alive on a thread,
// each bind of that thread sets SO_REUSEPORT first and records the
// descriptor. Every other bind goes straight to the next definition (libc's,
// or a sanitizer's interceptor).
#pragma once

#include <vector>

#include "edgeadmm/status.h"

namespace edgeadmm::server {

class ReusePortBinds {
 public:
  // INTERNAL (and nothing recorded) if this process's bind is not the
  // interposed one: the sockets would not share the port.
  static Status Check();

  ReusePortBinds();
  ~ReusePortBinds();
  ReusePortBinds(const ReusePortBinds&) = delete;
  ReusePortBinds& operator=(const ReusePortBinds&) = delete;

  // The descriptors bound on this thread since construction, in order.
  const std::vector<int>& bound() const { return bound_; }

 private:
  std::vector<int> bound_;
};

}  // namespace edgeadmm::server
