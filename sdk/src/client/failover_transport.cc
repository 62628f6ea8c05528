#include "edgeadmm/failover_transport.h"

#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm {

void FailoverTransport::Reconnect() {
  if (answered_) {
    answered_ = false;
    current().Reconnect();
    return;
  }
  Move();
}

void FailoverTransport::Move() {
  leave_ = false;
  answered_ = false;
  current().Reconnect();
  index_ = (index_ + 1) % count_;
  ++switches_;
  if (on_move_.fn != nullptr) on_move_.fn(on_move_.context, index_);
}

bool FailoverTransport::Judge(bool taken, const TransportResult& result) {
  if (taken && count_ > 1 &&
      (result.status == Status::DeadlineExceeded() ||
       result.status == Status::Unavailable() ||
       (result.status.ok() &&
        (result.code == wire::kCoapNotFound ||
         result.code == wire::kCoapServiceUnavailable)))) {
    leave_ = true;
  } else if (taken && result.status.ok() && (result.code >> 5) == 2) {
    answered_ = true;
  }
  return taken;
}

}  // namespace edgeadmm
