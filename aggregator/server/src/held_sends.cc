#include "edgeadmm/server/held_sends.h"

#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace edgeadmm::server {
namespace {

using SendmsgFn = ssize_t (*)(int, const msghdr*, int);

SendmsgFn NextSendmsg() {
  static const SendmsgFn next =
      reinterpret_cast<SendmsgFn>(dlsym(RTLD_NEXT, "sendmsg"));
  return next;
}

// The HeldSends of this thread's open Scope (null: none).
thread_local HeldSends* active = nullptr;

// Datagrams per sendmmsg call at most.
constexpr size_t kPerCall = 256;

}  // namespace

Status HeldSends::Check() {
  if (dlsym(RTLD_DEFAULT, "sendmsg") != reinterpret_cast<void*>(&::sendmsg) ||
      NextSendmsg() == nullptr) {
    return Status::Internal();
  }
  return Status::Ok();
}

HeldSends::HeldSends(HeldSendsLimits limits) : limits_(limits) {
  batch_.reserve(kPerCall);
  parts_.reserve(kPerCall);
}

void HeldSends::Watch(int fd) {
  if (fd >= 0 && !Watches(fd)) fds_.push_back(fd);
}

void HeldSends::Unwatch(int fd) {
  fds_.erase(std::remove(fds_.begin(), fds_.end(), fd), fds_.end());
}

bool HeldSends::Watches(int fd) const {
  return std::find(fds_.begin(), fds_.end(), fd) != fds_.end();
}

HeldSends::Scope::Scope(HeldSends* held) : previous_(active) { active = held; }

HeldSends::Scope::~Scope() { active = previous_; }

HeldSends* HeldSends::Current() { return active; }

size_t HeldSends::Append(const void* bytes, size_t size) {
  const size_t at =
      (bytes_.size() + alignof(cmsghdr) - 1) & ~(alignof(cmsghdr) - 1);
  bytes_.resize(at + size);
  if (bytes != nullptr && size > 0)
    std::memcpy(bytes_.data() + at, bytes, size);
  return at;
}

ssize_t HeldSends::Hold(int fd, const msghdr* message, int flags) {
  std::unique_lock<TimedLock> guard;
  if (lock_ != nullptr) guard = std::unique_lock<TimedLock>(*lock_);
  size_t data_size = 0;
  for (size_t i = 0; i < message->msg_iovlen; ++i) {
    data_size += message->msg_iov[i].iov_len;
  }
  const size_t size = message->msg_namelen + message->msg_controllen +
                      data_size + 3 * alignof(cmsghdr);
  const auto full = [&] {
    return held_.size() >= limits_.max_datagrams ||
           bytes_.size() + size > limits_.max_bytes;
  };
  if (full() && release_when_full_ && release_when_full_()) Flush();
  if (full()) {
    ++dropped_;  // as if lost on the way: CoAP and DTLS retransmit
    return static_cast<ssize_t>(data_size);
  }
  Held held{fd, flags,    0, message->msg_namelen, 0, message->msg_controllen,
            0,  data_size};
  held.name_at = Append(message->msg_name, message->msg_namelen);
  held.control_at = Append(message->msg_control, message->msg_controllen);
  held.data_at = Append(nullptr, data_size);
  size_t at = held.data_at;
  for (size_t i = 0; i < message->msg_iovlen; ++i) {
    const iovec& part = message->msg_iov[i];
    if (part.iov_len > 0) std::memcpy(&bytes_[at], part.iov_base, part.iov_len);
    at += part.iov_len;
  }
  held_.push_back(held);
  return static_cast<ssize_t>(data_size);
}

size_t HeldSends::Flush() {
  size_t sent = 0;
  // Kept between flushes: a pass allocates nothing once they have grown.
  std::vector<mmsghdr>& batch = batch_;
  std::vector<iovec>& parts = parts_;
  size_t next = 0;
  while (next < held_.size()) {
    // A run of datagrams on one socket with the same flags.
    const Held& first = held_[next];
    batch.clear();
    parts.clear();
    size_t end = next;
    while (end < held_.size() && end - next < kPerCall &&
           held_[end].fd == first.fd && held_[end].flags == first.flags) {
      const Held& h = held_[end];
      parts.push_back({bytes_.data() + h.data_at, h.data_size});
      mmsghdr m{};
      m.msg_hdr.msg_name =
          h.name_size > 0 ? bytes_.data() + h.name_at : nullptr;
      m.msg_hdr.msg_namelen = static_cast<socklen_t>(h.name_size);
      m.msg_hdr.msg_control =
          h.control_size > 0 ? bytes_.data() + h.control_at : nullptr;
      m.msg_hdr.msg_controllen = h.control_size;
      batch.push_back(m);
      ++end;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i].msg_hdr.msg_iov = &parts[i];
      batch[i].msg_hdr.msg_iovlen = 1;
    }
    size_t done = 0;
    while (done < batch.size()) {
      const int n =
          sendmmsg(first.fd, batch.data() + done,
                   static_cast<unsigned>(batch.size() - done), first.flags);
      if (n > 0) {
        done += static_cast<size_t>(n);
        sent += static_cast<size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        ++done;  // refused (a full buffer, an unreachable peer): lost
        ++dropped_;
      }
    }
    next = end;
  }
  held_.clear();
  bytes_.clear();
  return sent;
}

void HeldSends::Discard() {
  dropped_ += held_.size();
  held_.clear();
  bytes_.clear();
}

}  // namespace edgeadmm::server

// The interposed sendmsg (see held_sends.h).
extern "C" __attribute__((visibility("default"))) ssize_t sendmsg(
    int fd, const msghdr* message, int flags) {
  using edgeadmm::server::active;
  if (active != nullptr && active->Watches(fd)) {
    return active->Hold(fd, message, flags);
  }
  const auto next = edgeadmm::server::NextSendmsg();
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return next(fd, message, flags);
}
