// UdpRelay: a loopback UDP relay between one client and one server that
// counts datagrams and bytes in each direction and can drop a fraction of
// them (deterministic pseudo-random loss) -- for datagram budgets and loss
// tests. Runs its own thread; binds 127.0.0.1 only.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace edgeadmm::testing {

class UdpRelay {
 public:
  struct Counts {
    uint64_t to_server_datagrams = 0;
    uint64_t to_server_bytes = 0;
    uint64_t to_client_datagrams = 0;
    uint64_t to_client_bytes = 0;
    uint64_t dropped = 0;
  };

  // Relays 127.0.0.1:port() <-> 127.0.0.1:server_port. `loss` in [0, 1) is
  // the probability of dropping each datagram (either direction).
  UdpRelay(uint16_t server_port, double loss = 0.0, uint32_t seed = 1);
  ~UdpRelay();
  UdpRelay(const UdpRelay&) = delete;
  UdpRelay& operator=(const UdpRelay&) = delete;

  bool ok() const { return listen_fd_ >= 0 && upstream_fd_ >= 0; }
  uint16_t port() const { return port_; }
  Counts counts() const;
  void ResetCounts();

 private:
  void Run();
  bool Drop();

  int listen_fd_ = -1;
  int upstream_fd_ = -1;
  uint16_t port_ = 0;
  double loss_;
  uint64_t rng_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> to_server_datagrams_{0}, to_server_bytes_{0};
  std::atomic<uint64_t> to_client_datagrams_{0}, to_client_bytes_{0};
  std::atomic<uint64_t> dropped_{0};
  std::thread thread_;
};

}  // namespace edgeadmm::testing
