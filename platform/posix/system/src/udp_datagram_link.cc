#include "edgeadmm/posix/udp_datagram_link.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace edgeadmm::posix {

UdpDatagramLink::~UdpDatagramLink() { Close(); }

void UdpDatagramLink::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

Status UdpDatagramLink::Open(const char* host, uint16_t port) {
  Close();
  sockaddr_storage peer{};
  socklen_t size = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&peer);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&peer);
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    size = sizeof(*v4);
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    size = sizeof(*v6);
  } else {
    return Status::InvalidArgument();
  }
  fd_ = socket(peer.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Status::Unavailable();
  if (connect(fd_, reinterpret_cast<sockaddr*>(&peer), size) != 0) {
    Close();
    return Status::Unavailable();
  }
  return Status::Ok();
}

Status UdpDatagramLink::Send(ConstByteSpan datagram) {
  if (fd_ < 0) return Status::Unavailable();
  const ssize_t sent = send(fd_, datagram.data(), datagram.size(), 0);
  return sent == static_cast<ssize_t>(datagram.size()) ? Status::Ok()
                                                       : Status::Unavailable();
}

StatusWithSize UdpDatagramLink::Receive(ByteSpan buffer) {
  if (fd_ < 0) return StatusWithSize(Status::Unavailable(), 0);
  const ssize_t got = recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
  if (got >= 0) return StatusWithSize(static_cast<size_t>(got));
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
    return StatusWithSize(0);
  }
  return StatusWithSize(Status::Unavailable(), 0);  // e.g. ICMP unreachable
}

void UdpDatagramLink::Wait(uint32_t timeout_ms) {
  if (fd_ < 0) return;
  pollfd p{fd_, POLLIN, 0};
  (void)poll(&p, 1, static_cast<int>(timeout_ms));
}

}  // namespace edgeadmm::posix
