// HeldSends: keeps the datagrams that the daemon's endpoint sockets send
// during one I/O pass until the pass's store writes are durable, then sends
// them, or drops them if the writes failed (group commit: store::GroupCommit).
//
// A receipt tells a device that its upload is stored; with the pass's
// writes committed together, the receipt must not leave before that
// commit. libcoap 4.3.1 sends a handler's response from inside the handler
// with sendmsg(2) on the endpoint socket (DTLS records too: its OpenSSL
// BIO writes through it), and has no hook to delay it. So the server
// library defines sendmsg (as it defines recvmsg and bind,
// endpoint_read_filter.h, reuse_port_bind.h): while a Scope is alive on a
// thread, a sendmsg of that thread on a watched socket copies the datagram
// here and reports it sent (several threads may hold into one HeldSends,
// under the owner's lock: set_lock). Every other sendmsg goes straight to the
// next definition (libc's, or a sanitizer's interceptor).
//
// At the limits the held datagrams are released early if the owner can
// make the pass's writes durable right then (set_release_when_full: the
// server commits the pass's write batch, unless a request's transaction
// is open in it, and syncs the WAL; nothing to do when the pass wrote
// nothing), so a burst larger than the limits (a notification to 20,000
// observers) still goes out, in order. Otherwise a datagram past the limits
// is dropped (and counted), which is what a lossy network does: CoAP and
// DTLS retransmit. Either way memory stays bounded whatever a pass sends.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "edgeadmm/server/timed_lock.h"
#include "edgeadmm/status.h"

namespace edgeadmm::server {

struct HeldSendsLimits {
  size_t max_datagrams = 8192;
  size_t max_bytes = size_t{8} << 20;
};

class HeldSends {
 public:
  // INTERNAL if this process's sendmsg is not the interposed one (the
  // linker did not interpose it): receipts would leave before the commit.
  static Status Check();

  explicit HeldSends(HeldSendsLimits limits = {});

  // `make_durable` is called when a datagram would pass the limits: true if
  // the writes so far are durable (then what is held is flushed and holding
  // goes on), false to drop the datagram. None: drop.
  void set_release_when_full(std::function<bool()> make_durable) {
    release_when_full_ = std::move(make_durable);
  }
  // Hold (and the release above) runs under `lock`, the owner's, when
  // several threads send (null: no lock).
  void set_lock(TimedLock* lock) { lock_ = lock; }
  HeldSends(const HeldSends&) = delete;
  HeldSends& operator=(const HeldSends&) = delete;

  // Holds what is sent on `fd` (a shard's endpoint socket) while a Scope
  // is alive.
  void Watch(int fd);
  void Unwatch(int fd);

  // While alive, this thread's sendmsg on a watched socket is held.
  class Scope {
   public:
    explicit Scope(HeldSends& held) : Scope(&held) {}
    // Null: this thread's sends go out at once.
    explicit Scope(HeldSends* held);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    HeldSends* previous_;
  };

  // Sends what is held, in order (sendmmsg per run of one socket); returns
  // how many the kernel took. A datagram it refuses is dropped.
  size_t Flush();
  // Drops what is held.
  void Discard();

  // The HeldSends of this thread's innermost Scope (null: none), to open
  // the same Scope on another thread that sends for the same pass.
  static HeldSends* Current();

  size_t held() const { return held_.size(); }
  // Datagrams dropped so far: past the limits, refused by the kernel at
  // Flush, or discarded.
  uint64_t dropped() const { return dropped_; }

  // The interposed sendmsg's path for a watched socket (not for callers).
  bool Watches(int fd) const;
  ssize_t Hold(int fd, const msghdr* message, int flags);

 private:
  struct Held {
    int fd;
    int flags;
    size_t name_at, name_size;
    size_t control_at, control_size;
    size_t data_at, data_size;
  };
  // Appends `size` bytes (zeros if `bytes` is null) at an offset aligned
  // for cmsghdr; returns the offset.
  size_t Append(const void* bytes, size_t size);

  HeldSendsLimits limits_;
  std::vector<int> fds_;
  // What is held (its bytes in bytes_), and Flush's sendmmsg vectors; all
  // keep their capacity, so a loop pass allocates nothing once they grew.
  std::vector<Held> held_;
  std::vector<uint8_t> bytes_;
  std::vector<mmsghdr> batch_;
  std::vector<iovec> parts_;
  uint64_t dropped_ = 0;
  std::function<bool()> release_when_full_;
  TimedLock* lock_ = nullptr;
};

}  // namespace edgeadmm::server
