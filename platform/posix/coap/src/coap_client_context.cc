#include "edgeadmm/posix/coap_client_context.h"

#include <coap3/coap.h>

#include <algorithm>
#include <cstdlib>

#include "edgeadmm/posix/coap_batched_io.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/coap_shard_set.h"
#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::posix {
namespace {

CoapDtlsTransport* TransportOf(const coap_session_t* session) {
  return static_cast<CoapDtlsTransport*>(coap_session_get_app_data(session));
}

// Lists `transport` for CoapClientContext::TakeWoken, if it has a tag.
void Wake(const CoapDtlsTransport& transport) {
  if (transport.wake_tag() != CoapDtlsConfig::kNoWakeTag) {
    transport.context().NoteWoken(transport.wake_tag());
  }
}

coap_response_t HandleResponse(coap_session_t* session,
                               const coap_pdu_t* /*sent*/,
                               const coap_pdu_t* received,
                               const coap_mid_t /*mid*/) {
  CoapDtlsTransport* transport = TransportOf(session);
  if (transport == nullptr) return COAP_RESPONSE_FAIL;
  Wake(*transport);
  if (!transport->OnResponse(received)) {
    return COAP_RESPONSE_FAIL;  // unknown token: RST ends an observation
  }
  return COAP_RESPONSE_OK;
}

// Maps libcoap's reasons for giving up on a confirmable message.
void HandleNack(coap_session_t* session, const coap_pdu_t* sent,
                const coap_nack_reason_t reason, const coap_mid_t /*mid*/) {
  CoapDtlsTransport* transport = TransportOf(session);
  if (transport == nullptr) return;
  Wake(*transport);
  switch (reason) {
    case COAP_NACK_TOO_MANY_RETRIES:
      transport->OnFailure(Status::DeadlineExceeded(), sent,
                           &SessionEnds::retries_exhausted);
      break;
    case COAP_NACK_TLS_FAILED:
      transport->OnFailure(Status::Unauthenticated(), sent,
                           &SessionEnds::dtls_failures);
      break;
    case COAP_NACK_RST:
      transport->OnFailure(Status::Unavailable(), sent, &SessionEnds::resets);
      break;
    default:  // not deliverable, ICMP
      transport->OnFailure(Status::Unavailable(), sent, &SessionEnds::lost);
      break;
  }
}

int HandleEvent(coap_session_t* session, const coap_event_t event) {
  CoapDtlsTransport* transport = TransportOf(session);
  if (transport == nullptr) return 0;
  Wake(*transport);
  if (event == COAP_EVENT_DTLS_CONNECTED) {
    transport->OnHandshakeDone();
  } else if (event == COAP_EVENT_DTLS_ERROR) {
    transport->OnFailure(Status::Unauthenticated(), nullptr,
                         &SessionEnds::dtls_failures);
  } else if (event == COAP_EVENT_DTLS_CLOSED ||
             event == COAP_EVENT_SESSION_FAILED) {
    transport->OnFailure(Status::Unavailable(), nullptr, &SessionEnds::lost);
  }
  return 0;
}

}  // namespace

CoapClientContext::CoapClientContext(size_t shards) {
  coap_startup();  // idempotent
  // EDGEADMM_COAP_LOG=0..7 sets libcoap's (process-wide) syslog-style level.
  if (const char* level = std::getenv("EDGEADMM_COAP_LOG")) {
    coap_set_log_level(static_cast<coap_log_t>(std::atoi(level)));
  }
  if (!coap_dtls_is_supported()) {
    status_ = Status::Unavailable();
    return;
  }
  shards = std::max<size_t>(shards, 1);
  if (shards > 1) ready_shards_ = std::make_unique<CoapShardSet>(1);
  shards_.reserve(shards);
  for (size_t i = 0; i < shards; ++i) {
    coap_context_t* context = coap_new_context(nullptr);
    if (context == nullptr) {
      status_ = Status::Unavailable();
      return;
    }
    shards_.push_back(Shard{context, nullptr});
    // Block-wise transfers are driven by CoapDtlsTransport itself (libcoap
    // 4.3.1's own handling stalls under datagram loss).
    coap_register_response_handler(context, &HandleResponse);
    coap_register_nack_handler(context, &HandleNack);
    coap_register_event_handler(context, &HandleEvent);
    CoapBatchedIoOptions io;
    // Several shards: a shard walks when it has a batch, when libcoap's
    // timer fd wakes it (a retransmission) and before its first pass after
    // a new session (NextSessionContext: the walk arms the handshake's
    // timer), so its periodic walk is only a backstop.
    if (shards > 1) io.walk_interval_ms = kShardBackstopWalkMs;
    shards_.back().io = std::make_unique<CoapBatchedIo>(context, io);
    if (ready_shards_ != nullptr &&
        !ready_shards_->Add(context, shards_.back().io.get())) {
      status_ = Status::Unavailable();
      return;
    }
  }
}

CoapClientContext::~CoapClientContext() {
  ready_shards_.reset();
  for (Shard& shard : shards_) {
    shard.io.reset();
    coap_free_context(shard.context);
  }
}

void CoapClientContext::TakeWoken(std::vector<size_t>& tags) {
  tags.insert(tags.end(), woken_.begin(), woken_.end());
  woken_.clear();
}

coap_context_t* CoapClientContext::NextSessionContext() {
  if (!status_.ok() || shards_.empty()) return nullptr;
  Shard& shard = shards_[next_shard_];
  next_shard_ = (next_shard_ + 1) % shards_.size();
  shard.io->RequestWalk();
  return shard.context;
}

StatusWithSize CoapClientContext::Poll(uint32_t timeout_ms) {
  if (!status_.ok() || shards_.empty()) {
    return StatusWithSize(Status::Unavailable(), 0);
  }
  if (ready_shards_ == nullptr) {
    const int spent = shards_.front().io->Process(timeout_ms);
    if (spent < 0) return StatusWithSize(Status::Unavailable(), 0);
    return StatusWithSize(static_cast<size_t>(spent));
  }
  const uint64_t start = MonotonicMs();
  if (ready_shards_->RunOnce(
          static_cast<int>(std::min<uint32_t>(timeout_ms, 1u << 30))) < 0) {
    return StatusWithSize(Status::Unavailable(), 0);
  }
  return StatusWithSize(static_cast<size_t>(MonotonicMs() - start));
}

}  // namespace edgeadmm::posix
