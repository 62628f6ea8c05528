#include "edgeadmm/server/endpoint_read_filter.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::server {
namespace {

using RecvmsgFn = ssize_t (*)(int, msghdr*, int);

RecvmsgFn NextRecvmsg() {
  static const RecvmsgFn next =
      reinterpret_cast<RecvmsgFn>(dlsym(RTLD_NEXT, "recvmsg"));
  return next;
}

// Attached sockets (a process runs one daemon; tests run a few servers).
struct Slot {
  std::atomic<int> fd{-1};
  std::atomic<HandshakeAdmission*> admission{nullptr};
};
std::array<Slot, EndpointReadFilter::kMaxAttached> slots;
// Slots ever used: every recvmsg of the process scans only these.
std::atomic<size_t> slots_used{0};
std::mutex attach_mutex;

HandshakeAdmission* Find(int fd) {
  const size_t used = slots_used.load(std::memory_order_acquire);
  for (size_t i = 0; i < used; ++i) {
    Slot& slot = slots[i];
    if (slot.fd.load(std::memory_order_acquire) == fd) {
      return slot.admission.load(std::memory_order_acquire);
    }
  }
  return nullptr;
}

// Puts one control message (level, type, value) into `out`.
template <typename T>
void PutControl(msghdr& out, char* control, int level, int type,
                const T& value) {
  out.msg_control = control;
  out.msg_controllen = CMSG_SPACE(sizeof(T));
  cmsghdr* c = CMSG_FIRSTHDR(&out);
  c->cmsg_level = level;
  c->cmsg_type = type;
  c->cmsg_len = CMSG_LEN(sizeof(T));
  std::memcpy(CMSG_DATA(c), &value, sizeof(T));
}

// Sends `reply` to the sender of `received` from the local address the
// datagram came to (its IP_PKTINFO / IPV6_PKTINFO), as libcoap answers: a
// multi-homed gateway must answer from the address the client talks to.
void SendFrom(int fd, msghdr& received, const uint8_t* reply, size_t size) {
  iovec iov{const_cast<uint8_t*>(reply), size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(in6_pktinfo))] = {};
  msghdr out{};
  out.msg_name = received.msg_name;
  out.msg_namelen = received.msg_namelen;
  out.msg_iov = &iov;
  out.msg_iovlen = 1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&received); c != nullptr;
       c = CMSG_NXTHDR(&received, c)) {
    if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
      in6_pktinfo info{};
      std::memcpy(&info, CMSG_DATA(c), sizeof(info));
      PutControl(out, control, IPPROTO_IPV6, IPV6_PKTINFO, info);
      break;
    }
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      in_pktinfo info{};
      std::memcpy(&info, CMSG_DATA(c), sizeof(info));
      info.ipi_spec_dst = info.ipi_addr;
      info.ipi_ifindex = 0;
      PutControl(out, control, IPPROTO_IP, IP_PKTINFO, info);
      break;
    }
  }
  (void)sendmsg(fd, &out, MSG_DONTWAIT);
}

// The first `size` bytes of a datagram read into `msg`'s buffers, as one
// run: the first buffer itself when it holds them (libcoap passes one),
// else gathered into `head`.
const uint8_t* HeadOf(
    const msghdr& msg, size_t size,
    std::array<uint8_t, HandshakeAdmission::kHeadBytes>& head) {
  if (msg.msg_iovlen >= 1 && msg.msg_iov[0].iov_len >= size) {
    return static_cast<const uint8_t*>(msg.msg_iov[0].iov_base);
  }
  size_t copied = 0;
  for (size_t i = 0; i < msg.msg_iovlen && copied < size; ++i) {
    const size_t take = std::min(size - copied, msg.msg_iov[i].iov_len);
    std::memcpy(head.data() + copied, msg.msg_iov[i].iov_base, take);
    copied += take;
  }
  return head.data();
}

// recvmsg for an attached socket: judge, consume what is refused, hand on
// the first datagram that passes. Each datagram is read once, into the
// caller's buffers: one that passes is the caller's as read; one refused
// is dropped there (answered if asked) and the next is read over it.
ssize_t FilteredRecvmsg(int fd, msghdr* msg, int flags,
                        HandshakeAdmission& admission) {
  // Judge needs the source: given a msghdr without a name, use our own.
  sockaddr_storage own_name{};
  const bool named = msg->msg_name != nullptr;
  if (!named) msg->msg_name = &own_name;
  const socklen_t name_size = named ? msg->msg_namelen : sizeof(own_name);
  const size_t control_size = msg->msg_controllen;
  const auto give_back = [&](ssize_t result) {
    if (!named) {
      msg->msg_name = nullptr;
      msg->msg_namelen = 0;
    }
    return result;
  };
  int consumed = 0;
  for (;;) {
    msg->msg_namelen = name_size;  // the last read set both to its own
    msg->msg_controllen = control_size;
    const ssize_t n = NextRecvmsg()(fd, msg, flags | MSG_DONTWAIT);
    if (n < 0) {
      // Nothing left after refusals: libcoap ignores ECONNREFUSED silently
      // (as an ICMP error), where EAGAIN would log a warning per call.
      if (consumed > 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        errno = ECONNREFUSED;
      }
      return give_back(-1);
    }
    std::array<uint8_t, HandshakeAdmission::kHeadBytes> head;
    const size_t seen = std::min(static_cast<size_t>(n), head.size());
    std::array<uint8_t, HandshakeAdmission::kReplySize> reply;
    const HandshakeAdmission::Verdict verdict = admission.Judge(
        HeadOf(*msg, seen, head), seen,
        static_cast<const sockaddr*>(msg->msg_name), msg->msg_namelen,
        static_cast<int64_t>(posix::MonotonicMs()), reply);
    if (verdict == HandshakeAdmission::Verdict::kPass) return give_back(n);
    if (verdict == HandshakeAdmission::Verdict::kAnswer) {
      SendFrom(fd, *msg, reply.data(), reply.size());
    }
    if (++consumed >= EndpointReadFilter::kMaxConsumedPerRead) {
      errno = ECONNREFUSED;
      return give_back(-1);
    }
  }
}

}  // namespace

Status EndpointReadFilter::Attach(int fd, HandshakeAdmission* admission) {
  if (fd < 0 || admission == nullptr) return Status::InvalidArgument();
  // The interposition works if the process resolves recvmsg to this file's.
  if (dlsym(RTLD_DEFAULT, "recvmsg") != reinterpret_cast<void*>(&::recvmsg) ||
      NextRecvmsg() == nullptr) {
    return Status::Internal();
  }
  std::lock_guard<std::mutex> lock(attach_mutex);
  for (size_t i = 0; i < slots.size(); ++i) {
    Slot& slot = slots[i];
    if (slot.fd.load() == -1) {
      slot.admission.store(admission, std::memory_order_release);
      slot.fd.store(fd, std::memory_order_release);
      if (i >= slots_used.load()) {
        slots_used.store(i + 1, std::memory_order_release);
      }
      return Status::Ok();
    }
  }
  return Status::ResourceExhausted();
}

void EndpointReadFilter::Detach(int fd) {
  std::lock_guard<std::mutex> lock(attach_mutex);
  for (Slot& slot : slots) {
    if (slot.fd.load() == fd) {
      slot.fd.store(-1, std::memory_order_release);
      slot.admission.store(nullptr, std::memory_order_release);
    }
  }
}

}  // namespace edgeadmm::server

// The interposed recvmsg (see endpoint_read_filter.h).
extern "C" __attribute__((visibility("default"))) ssize_t recvmsg(int fd,
                                                                  msghdr* msg,
                                                                  int flags) {
  using edgeadmm::server::Find;
  if (edgeadmm::server::HandshakeAdmission* admission = Find(fd)) {
    return edgeadmm::server::FilteredRecvmsg(fd, msg, flags, *admission);
  }
  const auto next = edgeadmm::server::NextRecvmsg();
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return next(fd, msg, flags);
}
