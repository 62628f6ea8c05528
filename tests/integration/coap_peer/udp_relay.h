// UdpRelay: a loopback UDP relay between one client and one server that
// counts datagrams and bytes in each direction and can drop a fraction of
// them (deterministic pseudo-random loss) -- for datagram budgets and loss
// tests. Runs its own thread; binds 127.0.0.1 only.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

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
  // `listen_port` 0 picks a free port; another value reopens a port a relay
  // that is gone had (a peer that disappears and comes back).
  // `upstream_host` (host byte order, in 127.0.0.0/8) is the address the
  // server sees the relayed datagrams come from; 0 means 127.0.0.1. The
  // kernel picks the upstream port either way.
  UdpRelay(uint16_t server_port, double loss = 0.0, uint32_t seed = 1,
           uint16_t listen_port = 0, uint32_t upstream_host = 0);
  ~UdpRelay();
  UdpRelay(const UdpRelay&) = delete;
  UdpRelay& operator=(const UdpRelay&) = delete;

  // True once both sockets are set up (the listen port bound) and the
  // relay runs.
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  Counts counts() const;
  void ResetCounts();
  // Changes the drop probability from now on.
  void SetLoss(double loss) { loss_ = loss; }
  // Drops the datagrams with these 1-based indices (counted from now on)
  // towards the server / towards the client, e.g. {1, 3}.
  void DropExactly(std::vector<int> to_server, std::vector<int> to_client);
  // Sends `bytes` to the server from the relay's own upstream socket, i.e.
  // from the client's address and port as the server sees them (a spoofed
  // datagram); not counted. False if the send failed.
  bool InjectToServer(const std::vector<uint8_t>& bytes);

 private:
  void Run();
  bool Drop();
  bool DropScheduled(bool to_server);

  bool ok_ = false;
  int listen_fd_ = -1;
  int upstream_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<double> loss_;
  uint64_t rng_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> to_server_datagrams_{0}, to_server_bytes_{0};
  std::atomic<uint64_t> to_client_datagrams_{0}, to_client_bytes_{0};
  std::atomic<uint64_t> dropped_{0};
  std::mutex mutex_;
  std::vector<int> drop_to_server_, drop_to_client_;
  int seen_to_server_ = 0, seen_to_client_ = 0;
  std::thread thread_;
};

}  // namespace edgeadmm::testing
