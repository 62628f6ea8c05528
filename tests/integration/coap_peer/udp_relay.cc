#include "udp_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace edgeadmm::testing {
namespace {

sockaddr_in Loopback(uint16_t port, uint32_t host = INADDR_LOOPBACK) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(host);
  return a;
}

}  // namespace

UdpRelay::UdpRelay(uint16_t server_port, double loss, uint32_t seed,
                   uint16_t listen_port, uint32_t upstream_host)
    : loss_(loss), rng_(0x9e3779b97f4a7c15ull ^ seed) {
  listen_fd_ = socket(AF_INET, SOCK_DGRAM, 0);
  upstream_fd_ = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in any = Loopback(listen_port);
  sockaddr_in server = Loopback(server_port);
  sockaddr_in source =
      Loopback(0, upstream_host != 0 ? upstream_host : INADDR_LOOPBACK);
  if (listen_fd_ < 0 || upstream_fd_ < 0 ||
      bind(listen_fd_, reinterpret_cast<sockaddr*>(&any), sizeof(any)) != 0 ||
      bind(upstream_fd_, reinterpret_cast<sockaddr*>(&source),
           sizeof(source)) != 0 ||
      connect(upstream_fd_, reinterpret_cast<sockaddr*>(&server),
              sizeof(server)) != 0) {
    return;
  }
  socklen_t length = sizeof(any);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&any), &length);
  port_ = ntohs(any.sin_port);
  thread_ = std::thread([this] { Run(); });
  ok_ = true;
}

UdpRelay::~UdpRelay() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
  if (upstream_fd_ >= 0) close(upstream_fd_);
}

UdpRelay::Counts UdpRelay::counts() const {
  Counts c;
  c.to_server_datagrams = to_server_datagrams_;
  c.to_server_bytes = to_server_bytes_;
  c.to_client_datagrams = to_client_datagrams_;
  c.to_client_bytes = to_client_bytes_;
  c.dropped = dropped_;
  return c;
}

void UdpRelay::ResetCounts() {
  to_server_datagrams_ = to_server_bytes_ = 0;
  to_client_datagrams_ = to_client_bytes_ = 0;
  dropped_ = 0;
}

void UdpRelay::DropExactly(std::vector<int> to_server,
                           std::vector<int> to_client) {
  std::lock_guard<std::mutex> lock(mutex_);
  drop_to_server_ = std::move(to_server);
  drop_to_client_ = std::move(to_client);
  seen_to_server_ = seen_to_client_ = 0;
}

bool UdpRelay::DropScheduled(bool to_server) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int index = to_server ? ++seen_to_server_ : ++seen_to_client_;
  const std::vector<int>& list = to_server ? drop_to_server_ : drop_to_client_;
  for (int i : list) {
    if (i == index) return true;
  }
  return false;
}

bool UdpRelay::Drop() {
  if (loss_ <= 0.0) return false;
  rng_ ^= rng_ << 13;  // xorshift64: deterministic per seed
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return static_cast<double>(rng_ >> 11) / 9007199254740992.0 < loss_;
}

bool UdpRelay::InjectToServer(const std::vector<uint8_t>& bytes) {
  return send(upstream_fd_, bytes.data(), bytes.size(), 0) ==
         static_cast<ssize_t>(bytes.size());
}

void UdpRelay::Run() {
  sockaddr_in client{};
  bool have_client = false;
  unsigned char buffer[65536];
  while (!stop_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {upstream_fd_, POLLIN, 0}};
    if (poll(fds, 2, 20) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      sockaddr_in from{};
      socklen_t length = sizeof(from);
      const ssize_t n = recvfrom(listen_fd_, buffer, sizeof(buffer), 0,
                                 reinterpret_cast<sockaddr*>(&from), &length);
      if (n >= 0) {
        client = from;
        have_client = true;
        ++to_server_datagrams_;
        to_server_bytes_ += static_cast<uint64_t>(n);
        if (DropScheduled(true) || Drop()) {
          ++dropped_;
        } else {
          send(upstream_fd_, buffer, static_cast<size_t>(n), 0);
        }
      }
    }
    if (fds[1].revents & POLLIN) {
      const ssize_t n = recv(upstream_fd_, buffer, sizeof(buffer), 0);
      if (n >= 0 && have_client) {
        ++to_client_datagrams_;
        to_client_bytes_ += static_cast<uint64_t>(n);
        if (DropScheduled(false) || Drop()) {
          ++dropped_;
        } else {
          sendto(listen_fd_, buffer, static_cast<size_t>(n), 0,
                 reinterpret_cast<sockaddr*>(&client), sizeof(client));
        }
      }
    }
  }
}

}  // namespace edgeadmm::testing
