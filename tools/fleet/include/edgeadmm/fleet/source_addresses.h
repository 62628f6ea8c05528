// SourceAddresses: the loopback source addresses of a fleet's device
// sessions (`edgeadmm-fleet connect --local-address A --local-addresses K`):
// K consecutive IPv4 addresses from A (127.0.0.2, 127.0.0.3, ...; on Linux
// all of 127.0.0.0/8 routes to lo), each with its own LocalPortPool, and
// device j of the process on address j % K. A server then sees the fleet
// as K hosts, as it would see a real fleet (each device its own address
// when K = devices), instead of one host with thousands of ports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/posix/local_port_pool.h"

namespace edgeadmm::fleet {

class SourceAddresses {
 public:
  // `first`: a numeric IPv4 address of this host; `count` >= 1 consecutive
  // addresses from it (the last within 127.255.255.254 when `first` is a
  // loopback address); `devices`: how many devices will use them, which
  // sizes each address's port range (4 ports per device of an address, at
  // least 64: a port released on a reconnect is reused only after the
  // others). INVALID_ARGUMENT for a bad address or count, or if the first
  // or last address cannot be bound.
  static host::ErrorOr<SourceAddresses> Make(const std::string& first,
                                             size_t count, size_t devices);

  // The port pool of device `j` (j % count).
  posix::LocalPortPool* ForDevice(size_t j) const {
    return pools_[j % pools_.size()].get();
  }
  size_t count() const { return pools_.size(); }

  // The i-th address from `first` as text, or "" past the IPv4 space or for
  // a malformed `first`.
  static std::string Nth(const std::string& first, size_t i);

 private:
  std::vector<std::unique_ptr<posix::LocalPortPool>> pools_;
};

// True if a UDP socket can bind to the numeric address `host` (port 0).
bool IsLocalAddress(const std::string& host);

}  // namespace edgeadmm::fleet
