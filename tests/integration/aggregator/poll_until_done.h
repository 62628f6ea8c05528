// The devices of a daemon test driven from one thread: every DeviceClient
// and its own transport polled in turn, then one wait for the next datagram,
// until each device has heard that the job is done or the time limit passed.
#pragma once

#include <cstdint>

#include "edgeadmm/device_client.h"
#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::testing {

// `devices` holds pointers to structs with a DeviceClient `client`;
// `poll_transport(device)` polls that device's transport (if it has its
// own) and `wait()` blocks up to a few ms for I/O. True if all are done.
template <typename Devices, typename PollTransport, typename Wait>
bool PollUntilAllDone(Devices& devices, uint64_t limit_ms,
                      PollTransport poll_transport, Wait wait) {
  auto all_done = [&] {
    for (auto& d : devices) {
      if (d->client.state() != ClientState::kDone) return false;
    }
    return true;
  };
  const uint64_t start = posix::MonotonicMs();
  while (!all_done() && posix::MonotonicMs() - start < limit_ms) {
    for (auto& d : devices) {
      d->client.Poll(posix::MonotonicMs()).IgnoreError();
      poll_transport(*d);
    }
    wait();
  }
  return all_done();
}

}  // namespace edgeadmm::testing
