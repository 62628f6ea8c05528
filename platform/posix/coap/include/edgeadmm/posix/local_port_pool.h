// LocalPortPool: one local (source) address and distinct UDP ports for the
// client sessions of many CoapDtlsTransports in one process
// (`edgeadmm-fleet connect --local-address`).
//
// Why: every simulated device has its own UDP socket, and a single source
// address has only the kernel's ephemeral range (28,232 ports by default)
// towards one server; several fleet processes on their own loopback
// addresses (127.0.0.K: all of 127/8 is loopback on Linux) lift that limit.
// Why the ports are picked here and not by the kernel: libcoap 4.3.1 sets
// SO_REUSEADDR on a client socket before binding it to the local address, and
// with SO_REUSEADDR the kernel's port-0 bind may hand out a port another of
// our sockets already holds (284 of 4,000 in a test), so two devices would
// share one source address and the server one DTLS session.
//
// Ports are handed out round robin, so a released port is reused only after
// every other free one: a closing socket is gone by then, and the server has
// likely dropped the old session of that address. Not thread safe (one
// context, one thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace edgeadmm::posix {

class LocalPortPool {
 public:
  // `address`: a numeric IPv4 or IPv6 literal of this host; ports
  // [first, last] (first >= 1).
  explicit LocalPortPool(std::string address, uint16_t first = 1024,
                         uint16_t last = 65535);

  const char* address() const { return address_.c_str(); }

  // A port no one holds, the next after the last one handed out; 0 if every
  // port of the range is held.
  uint16_t Acquire();
  // Gives back a port from Acquire (others are ignored).
  void Release(uint16_t port);

  size_t held() const { return held_count_; }

 private:
  std::string address_;
  uint16_t first_;
  uint16_t last_;
  uint32_t next_;
  std::vector<bool> held_;  // indexed by port - first_
  size_t held_count_ = 0;
};

}  // namespace edgeadmm::posix
