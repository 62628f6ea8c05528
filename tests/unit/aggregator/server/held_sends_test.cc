// HeldSends: a watched socket's sendmsg inside a Scope is held until Flush
// (sent in order) or Discard (dropped); everything else goes out at once.
#include "edgeadmm/server/held_sends.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace edgeadmm::server {
namespace {

// A UDP socket bound to an ephemeral loopback port.
struct Udp {
  int fd = -1;
  sockaddr_in address{};
  Udp() {
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(address);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), size), 0);
    EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size), 0);
  }
  ~Udp() { close(fd); }

  // sendmsg of `text` to `to`, in two iovec parts (as a gather write).
  ssize_t Send(const Udp& to, const std::string& text) const {
    const size_t half = text.size() / 2;
    iovec parts[2] = {
        {const_cast<char*>(text.data()), half},
        {const_cast<char*>(text.data()) + half, text.size() - half}};
    msghdr message{};
    message.msg_name = const_cast<sockaddr_in*>(&to.address);
    message.msg_namelen = sizeof(to.address);
    message.msg_iov = parts;
    message.msg_iovlen = 2;
    return sendmsg(fd, &message, 0);
  }
  // The next datagram waiting, or "" (loopback delivers within sendmsg).
  std::string Receive() const {
    char buffer[2048];
    const ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    return n < 0 ? std::string() : std::string(buffer, static_cast<size_t>(n));
  }
};

TEST(HeldSendsTest, TheProcessSendmsgIsTheInterposedOne) {
  EXPECT_TRUE(HeldSends::Check().ok());
}

TEST(HeldSendsTest, HoldsAWatchedSocketUntilFlushThenSendsInOrder) {
  Udp endpoint, device;
  HeldSends held;
  held.Watch(endpoint.fd);
  {
    HeldSends::Scope scope(held);
    EXPECT_EQ(endpoint.Send(device, "receipt one"), 11);
    EXPECT_EQ(endpoint.Send(device, "receipt two"), 11);
  }
  EXPECT_EQ(device.Receive(), "");  // nothing left before the commit
  EXPECT_EQ(held.held(), 2u);
  EXPECT_EQ(held.Flush(), 2u);
  EXPECT_EQ(device.Receive(), "receipt one");
  EXPECT_EQ(device.Receive(), "receipt two");
  EXPECT_EQ(device.Receive(), "");
  EXPECT_EQ(held.held(), 0u);
  EXPECT_EQ(held.dropped(), 0u);
}

TEST(HeldSendsTest, DiscardDropsWhatIsHeld) {
  Udp endpoint, device;
  HeldSends held;
  held.Watch(endpoint.fd);
  {
    HeldSends::Scope scope(held);
    endpoint.Send(device, "not stored");
  }
  held.Discard();
  EXPECT_EQ(held.Flush(), 0u);
  EXPECT_EQ(device.Receive(), "");
  EXPECT_EQ(held.dropped(), 1u);
}

TEST(HeldSendsTest, OtherSocketsAndSendsOutsideAScopeGoOutAtOnce) {
  Udp endpoint, other, device;
  HeldSends held;
  held.Watch(endpoint.fd);
  endpoint.Send(device, "before");  // no scope
  EXPECT_EQ(device.Receive(), "before");
  {
    HeldSends::Scope scope(held);
    other.Send(device, "unwatched");
    EXPECT_EQ(device.Receive(), "unwatched");
  }
  held.Unwatch(endpoint.fd);
  {
    HeldSends::Scope scope(held);
    endpoint.Send(device, "unwatched now");
    EXPECT_EQ(device.Receive(), "unwatched now");
  }
  EXPECT_EQ(held.held(), 0u);
}

TEST(HeldSendsTest, PastItsLimitsADatagramIsDroppedNotStored) {
  Udp endpoint, device;
  HeldSendsLimits limits;
  limits.max_datagrams = 2;
  HeldSends held(limits);
  held.Watch(endpoint.fd);
  {
    HeldSends::Scope scope(held);
    for (int i = 0; i < 5; ++i) {
      // Reported sent, as a datagram lost on the way would be.
      EXPECT_EQ(endpoint.Send(device, "d" + std::to_string(i)), 2);
    }
  }
  EXPECT_EQ(held.held(), 2u);
  EXPECT_EQ(held.dropped(), 3u);
  EXPECT_EQ(held.Flush(), 2u);
  EXPECT_EQ(device.Receive(), "d0");
  EXPECT_EQ(device.Receive(), "d1");
  EXPECT_EQ(device.Receive(), "");
}

// At the limit the owner may make the writes durable and release what is
// held: a burst larger than the limits goes out whole and in order.
TEST(HeldSendsTest, AtItsLimitsWhatIsHeldIsReleasedWhenDurable) {
  Udp endpoint, device;
  HeldSendsLimits limits;
  limits.max_datagrams = 2;
  HeldSends held(limits);
  held.Watch(endpoint.fd);
  int syncs = 0;
  bool durable = true;
  held.set_release_when_full([&] {
    ++syncs;
    return durable;
  });
  {
    HeldSends::Scope scope(held);
    for (int i = 0; i < 5; ++i) endpoint.Send(device, "d" + std::to_string(i));
    EXPECT_EQ(held.held(), 1u);  // d0 d1, then d2 d3 released; d4 held
    durable = false;             // a failed sync: past the limit, dropped
    for (int i = 5; i < 8; ++i) endpoint.Send(device, "d" + std::to_string(i));
  }
  EXPECT_EQ(syncs, 4);
  EXPECT_EQ(held.dropped(), 2u);  // d6 and d7
  EXPECT_EQ(held.Flush(), 2u);    // d4 and d5
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(device.Receive(), "d" + std::to_string(i));
  }
  EXPECT_EQ(device.Receive(), "");
}

TEST(HeldSendsTest, ByteLimitBoundsTheMemory) {
  Udp endpoint, device;
  HeldSendsLimits limits;
  limits.max_bytes = 4096;
  HeldSends held(limits);
  held.Watch(endpoint.fd);
  const std::string big(1500, 'x');
  {
    HeldSends::Scope scope(held);
    for (int i = 0; i < 10; ++i) endpoint.Send(device, big);
  }
  EXPECT_EQ(held.held(), 2u);  // 2 x (1500 + address + alignment) fit
  EXPECT_EQ(held.dropped(), 8u);
  held.Discard();
}

}  // namespace
}  // namespace edgeadmm::server
