// FailoverTransport: a device provisioned with several gateways of one
// deployment (docs/aggregator.md, "Several gateways on one database"). It
// speaks through one of `gateways` at a time, the first at start, and moves
// to the next (after the last: the first)
// - when the client calls Reconnect (DeviceClient: no task notification
//   for its refresh interval, docs/device.md) and the gateway has not
//   answered anything (2.xx)
//   since the previous Reconnect; a gateway that did answer gets a new
//   session first (a busy coordinator whose round outlasts the refresh is
//   not left for a standby), and is left if that one fails as below. The
//   exchange in flight is abandoned without a report, as Reconnect
//   promises;
// - at the next exchange after one that tells the gateway cannot serve:
//   no answer (DEADLINE_EXCEEDED), unreachable (UNAVAILABLE), 4.04, the
//   answer of a gateway that serves no job (a standby: it does not hold the
//   job's coordinator lease), or 5.03, the answer of a gateway that cannot
//   write its database (a coordinator cut off from it, whose lease has
//   passed on). With one gateway nothing changes.
// The client then registers again (or fetches) on the next gateway, whose
// answer is the job's current task, and its upload, if it was not
// acknowledged, is sent again there: the store keeps one upload per
// (job, round, device), whichever gateway took it.
//
// No heap: the caller owns the transports (one per gateway) and the array
// of pointers, which must outlive this object. A device with RAM for one
// DTLS session only (an MCU) passes the same transport for every gateway
// and a move hook that points its datagram link at the gateway moved to
// (examples/cortex_m4_device/main.cc): the transport has dropped its
// session before the hook runs, so its next exchange handshakes with the
// new gateway.
#pragma once

#include <cstddef>

#include "edgeadmm/transport.h"

namespace edgeadmm {

// Called after each move of a FailoverTransport with the index of the
// gateway moved to (null fn: nothing).
struct FailoverMoveHook {
  void (*fn)(void* context, size_t index) = nullptr;
  void* context = nullptr;
};

class FailoverTransport final : public Transport {
 public:
  // `gateways[0..count)`: non-null; count >= 1. Starts on gateways[first %
  // count] (a fleet spreads its devices over the gateways).
  FailoverTransport(Transport* const* gateways, size_t count, size_t first = 0,
                    FailoverMoveHook on_move = {})
      : gateways_(gateways),
        count_(count),
        index_(first % count),
        on_move_(on_move) {}

  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override {
    LeaveIfDue();
    return current().StartRequest(request, response_buffer);
  }
  bool TakeResult(TransportResult& result) override {
    return Judge(current().TakeResult(result), result);
  }
  void Cancel() override { current().Cancel(); }
  Status StartObserve(const char* path, ByteSpan notification_buffer) override {
    LeaveIfDue();
    return current().StartObserve(path, notification_buffer);
  }
  bool TakeNotification(TransportResult& result) override {
    return Judge(current().TakeNotification(result), result);
  }
  void StopObserve() override { current().StopObserve(); }
  // Whether the gateway in use streams; all of a device's gateways are
  // transports of one kind.
  bool streams_bodies() const override {
    return gateways_[index_]->streams_bodies();
  }
  // Drops the session with the gateway in use; moves to the next one
  // unless the gateway answered since the last call.
  void Reconnect() override;
  StatusWithSize Poll(uint32_t timeout_ms) override {
    return current().Poll(timeout_ms);
  }

  // The gateway in use (an index into the array) and how many moves so far.
  size_t index() const { return index_; }
  size_t switches() const { return switches_; }

 private:
  Transport& current() { return *gateways_[index_]; }
  // Marks the gateway to be left if `taken` `result` says it cannot serve;
  // returns `taken`.
  bool Judge(bool taken, const TransportResult& result);
  void LeaveIfDue() {
    if (leave_) Move();
  }
  // Drops the session with the gateway in use and moves to the next one.
  void Move();
  Transport* const* gateways_;
  size_t count_;
  size_t index_;
  FailoverMoveHook on_move_;
  size_t switches_ = 0;
  bool leave_ = false;     // the next exchange goes to the next gateway
  bool answered_ = false;  // a 2.xx from the gateway since the last Reconnect
};

}  // namespace edgeadmm
