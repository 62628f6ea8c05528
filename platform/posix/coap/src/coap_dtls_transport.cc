#include "edgeadmm/posix/coap_dtls_transport.h"

#include <arpa/inet.h>
#include <coap3/coap.h>

#include <cstring>

#include "coap_uri_options.h"
#include "dtls_progress.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/result.h"

namespace edgeadmm::posix {
namespace {

// Block1 size exponent: SZX 6 = 1024-byte blocks, one per DTLS datagram.
constexpr uint32_t kBlockSzx = 6;
constexpr size_t kBlockSize = 1024;
// Block numbers fit the 20-bit NUM field.
constexpr size_t kMaxBlocks = size_t{1} << 20;

coap_pdu_code_t MethodCode(CoapMethod method) {
  switch (method) {
    case CoapMethod::kGet:
      return COAP_REQUEST_CODE_GET;
    case CoapMethod::kPost:
      return COAP_REQUEST_CODE_POST;
    case CoapMethod::kPut:
      return COAP_REQUEST_CODE_PUT;
    case CoapMethod::kDelete:
      return COAP_REQUEST_CODE_DELETE;
  }
  return COAP_REQUEST_CODE_GET;
}

// Parses a numeric IPv4/IPv6 literal into a libcoap address.
bool ParseAddress(const char* host, uint16_t port, coap_address_t& out) {
  coap_address_init(&out);
  if (inet_pton(AF_INET, host, &out.addr.sin.sin_addr) == 1) {
    out.addr.sin.sin_family = AF_INET;
    out.size = sizeof(out.addr.sin);
  } else if (inet_pton(AF_INET6, host, &out.addr.sin6.sin6_addr) == 1) {
    out.addr.sin6.sin6_family = AF_INET6;
    out.size = sizeof(out.addr.sin6);
  } else {
    return false;
  }
  coap_address_set_port(&out, port);
  return true;
}

bool AddUintOption(coap_pdu_t* pdu, coap_option_num_t number, uint32_t value) {
  uint8_t buffer[4];
  const unsigned length = coap_encode_var_safe(buffer, sizeof(buffer), value);
  return coap_add_option(pdu, number, length, buffer) != 0;
}

// The Content-Format option of a PDU, or kNoContentFormat.
uint16_t ContentFormatOf(const coap_pdu_t* pdu) {
  coap_opt_iterator_t iterator;
  const coap_opt_t* option =
      coap_check_option(pdu, COAP_OPTION_CONTENT_FORMAT, &iterator);
  if (option == nullptr) return TransportResult::kNoContentFormat;
  return static_cast<uint16_t>(
      coap_decode_var_bytes(coap_opt_value(option), coap_opt_length(option)));
}

}  // namespace

CoapDtlsTransport::CoapDtlsTransport(CoapClientContext& context,
                                     const CoapDtlsConfig& config)
    : context_(context), config_(config) {}

CoapDtlsTransport::~CoapDtlsTransport() { Close(); }

const coap_context_t* CoapDtlsTransport::session_context() const {
  return session_ == nullptr ? nullptr : coap_session_get_context(session_);
}

void CoapDtlsTransport::Close() {
  request_ = Slot{};
  observe_ = Slot{};
  ReleaseSession();
  handshake_done_ = false;
  session_failed_ = false;
}

// PDU ownership (libcoap 4.3.1). A PDU from coap_new_pdu is ours until it
// is handed to coap_send, which takes it whatever it returns (it frees it on
// failure): Send deletes only PDUs it never passed on. libcoap keeps a sent
// confirmable PDU in a queue node (retransmission queue, or the session's
// delay queue while a handshake runs) until it is acknowledged or given up;
// a node in the retransmission queue holds a reference to the session.
// Releasing our reference alone is not enough: if an ICMP error had reset the
// session, the node's next retransmission starts a new handshake, drops the
// node's reference (coap_session_delay_pdu), frees the session under it and
// appends the node to the freed session: the node and its PDU leak, and
// libcoap writes to freed memory (tests/integration/coap_peer/
// libcoap_release_leak.c). So the session is first disconnected (deleting
// its queued nodes; their NACKs reach no transport), then released.
void CoapDtlsTransport::ReleaseSession() {
  if (session_ != nullptr) {
    coap_session_set_app_data(session_, nullptr);
    coap_session_disconnected(session_, COAP_NACK_NOT_DELIVERABLE);
    coap_session_release(session_);
    session_ = nullptr;
  }
  if (local_port_ != 0) {
    config_.local_ports->Release(local_port_);
    local_port_ = 0;
  }
}

Status CoapDtlsTransport::EnsureSession() {
  if (session_ != nullptr && !session_failed_) return Status::Ok();
  if (session_ != nullptr) {  // a failed session is not reused
    // Whatever still runs on it ends with it: report it, so the owner
    // retries instead of waiting for an answer that cannot come.
    TransportResult ended;
    ended.status = Status::Unavailable();
    for (Slot* slot : {&request_, &observe_}) {
      if (slot->active && !slot->ready) {
        slot->active = false;
        Complete(*slot, ended);
      }
    }
    ReleaseSession();
  }
  handshake_done_ = false;
  session_failed_ = false;
  coap_context_t* const shard = context_.NextSessionContext();
  if (shard == nullptr) return Status::Unavailable();
  coap_address_t server;
  if (!ParseAddress(config_.host, config_.port, server)) {
    return Status::InvalidArgument();
  }
  const size_t identity_length = std::strlen(config_.identity);
  if (identity_length == 0 || config_.key.empty()) {
    return Status::InvalidArgument();
  }
  coap_dtls_cpsk_t setup;
  std::memset(&setup, 0, sizeof(setup));
  setup.version = COAP_DTLS_CPSK_SETUP_VERSION;
  setup.psk_info.identity.s =
      reinterpret_cast<const uint8_t*>(config_.identity);
  setup.psk_info.identity.length = identity_length;
  setup.psk_info.key.s = reinterpret_cast<const uint8_t*>(config_.key.data());
  setup.psk_info.key.length = config_.key.size();
  coap_address_t local;
  const coap_address_t* local_if = nullptr;
  if (config_.local_ports != nullptr) {
    local_port_ = config_.local_ports->Acquire();
    if (local_port_ == 0) return Status::ResourceExhausted();
    if (!ParseAddress(config_.local_ports->address(), local_port_, local) ||
        local.addr.sa.sa_family != server.addr.sa.sa_family) {
      ReleaseSession();
      return Status::InvalidArgument();
    }
    local_if = &local;
  }
  session_ = coap_new_client_session_psk2(shard, local_if, &server,
                                          COAP_PROTO_DTLS, &setup);
  if (session_ == nullptr) {
    ReleaseSession();  // the pool port
    return Status::Unavailable();
  }
  coap_session_set_app_data(session_, this);
  handshake_started_ms_ = MonotonicMs();
  last_heard_ms_ = 0;
  coap_fixed_point_t ack_timeout;
  ack_timeout.integer_part =
      static_cast<uint16_t>(config_.ack_timeout_ms / 1000);
  ack_timeout.fractional_part =
      static_cast<uint16_t>(config_.ack_timeout_ms % 1000);
  coap_session_set_ack_timeout(session_, ack_timeout);
  coap_session_set_max_retransmit(session_, config_.max_retransmit);
  return Status::Ok();
}

Status CoapDtlsTransport::Send(Slot& slot, bool observe) {
  if (slot.path == nullptr) return Status::InvalidArgument();
  // A Block1/Block2 transfer cannot move to a new session (the server
  // keeps its block state per session): fail it, the owner starts over.
  if (session_failed_ && (slot.block != 0 || slot.block2 != 0)) {
    return Status::Unavailable();
  }
  EDGEADMM_TRY(EnsureSession());
  coap_pdu_t* pdu =
      coap_new_pdu(COAP_MESSAGE_CON, MethodCode(slot.method), session_);
  if (pdu == nullptr) return Status::ResourceExhausted();
  // Block-wise transfer (RFC 7959) is done here, one confirmable request per
  // block: libcoap 4.3.1's own (COAP_BLOCK_USE_LIBCOAP) loses track of a
  // transfer when a datagram is lost (it hands a 2.31 Continue to the
  // application, or stalls a Block2 download).
  const ConstByteSpan payload = slot.payload;
  const bool blockwise = payload.size() > kBlockSize;
  ConstByteSpan chunk = payload;
  bool more = false;
  if (blockwise) {
    const size_t offset = slot.block * kBlockSize;
    const size_t left = payload.size() - offset;
    chunk = payload.subspan(offset, left < kBlockSize ? left : kBlockSize);
    more = offset + chunk.size() < payload.size();
  }
  Token token;
  coap_session_new_token(session_, &token.size, token.bytes);
  bool ok = coap_add_token(pdu, token.size, token.bytes) != 0;
  // Options in ascending number order: Observe (6), Uri-Path (11),
  // Content-Format (12), Uri-Query (15), Block2 (23), Block1 (27), Size1 (60).
  if (ok && observe) {
    ok = AddUintOption(pdu, COAP_OPTION_OBSERVE, COAP_OBSERVE_ESTABLISH);
  }
  if (ok && !AddPath(pdu, slot.path)) {
    coap_delete_pdu(pdu);
    return Status::InvalidArgument();
  }
  if (ok && !payload.empty()) {
    ok = AddUintOption(pdu, COAP_OPTION_CONTENT_FORMAT, slot.content_format);
  }
  if (ok && !AddQuery(pdu, slot.path)) {
    coap_delete_pdu(pdu);
    return Status::InvalidArgument();
  }
  if (ok && slot.block2 != 0) {
    ok = AddUintOption(pdu, COAP_OPTION_BLOCK2,
                       (slot.block2 << 4) | slot.block2_szx);
  }
  if (ok && blockwise) {
    ok =
        AddUintOption(pdu, COAP_OPTION_BLOCK1,
                      static_cast<uint32_t>((slot.block << 4) |
                                            (more ? 0x08u : 0u) | kBlockSzx)) &&
        (slot.block != 0 ||
         AddUintOption(pdu, COAP_OPTION_SIZE1,
                       static_cast<uint32_t>(payload.size())));
  }
  if (ok && !chunk.empty()) {
    ok = coap_add_data(pdu, chunk.size(),
                       reinterpret_cast<const uint8_t*>(chunk.data())) != 0;
  }
  if (!ok) {
    coap_delete_pdu(pdu);
    return Status::ResourceExhausted();
  }
  // Mark the slot first: a failure inside coap_send reports synchronously.
  // The block GETs of a notification keep the registration's token for the
  // notifications to come.
  (&slot == &observe_ && !observe ? slot.fetch_token : slot.token) = token;
  slot.active = true;
  slot.ready = false;
  if (coap_send(session_, pdu) == COAP_INVALID_MID) {
    if (slot.active && !slot.ready) {
      slot.active = false;
      return Status::Unavailable();
    }
  }
  return Status::Ok();
}

Status CoapDtlsTransport::StartRequest(const TransportRequest& request,
                                       ByteSpan response_buffer) {
  if (request_.active) return Status::FailedPrecondition();
  // Bodies stream only through the SDK's CoapClient (streams_bodies()).
  if (request.payload_source != nullptr || request.response_sink != nullptr) {
    return Status::Unimplemented();
  }
  if (request.payload.size() > kMaxBlocks * kBlockSize) {
    return Status::OutOfRange();
  }
  request_ = Slot{};
  request_.buffer = response_buffer;
  request_.method = request.method;
  request_.path = request.path;
  request_.content_format = request.content_format;
  request_.payload = request.payload;
  request_.started_ms = MonotonicMs();
  return Send(request_, /*observe=*/false);
}

// A 2.31 Continue for the block just sent: send the next one.
bool CoapDtlsTransport::ContinueUpload(const coap_pdu_t* received) {
  coap_opt_iterator_t iterator;
  const coap_opt_t* option =
      coap_check_option(received, COAP_OPTION_BLOCK1, &iterator);
  if (option == nullptr) return true;  // not about our blocks: ignore it
  const uint32_t value =
      coap_decode_var_bytes(coap_opt_value(option), coap_opt_length(option));
  if ((value >> 4) != request_.block) return true;  // stale: ignore it
  if ((value & 0x07u) != kBlockSzx)
    return false;  // smaller blocks: unsupported
  ++request_.block;
  if (request_.block * kBlockSize >= request_.payload.size()) return false;
  const Status sent = Send(request_, /*observe=*/false);
  if (!sent.ok()) {
    TransportResult result;
    result.status = sent;
    request_.active = false;
    Complete(request_, result);
  }
  return true;
}

Status CoapDtlsTransport::HandshakeFailure(Status otherwise) const {
  if (session_ == nullptr) return otherwise;
  return internal::DtlsPastServerHello(session_) ? Status::Unauthenticated()
                                                 : otherwise;
}

void CoapDtlsTransport::OnHandshakeDone() {
  handshakes_ += handshake_done_ ? 0 : 1;
  if (!handshake_done_) last_heard_ms_ = MonotonicMs();
  handshake_done_ = true;
  ever_connected_ = true;
}

bool CoapDtlsTransport::HandshakeDone() {
  // libcoap 4.3.1's Mbed TLS backend sends COAP_EVENT_DTLS_CONNECTED only when
  // the handshake completes while a session is being created, not when it
  // completes on a received record (the usual case): read the session state.
  if (!handshake_done_ && session_ != nullptr &&
      coap_session_get_state(session_) == COAP_SESSION_STATE_ESTABLISHED) {
    OnHandshakeDone();
  }
  return handshake_done_;
}

void CoapDtlsTransport::CheckDeadlines() {
  const bool requesting = request_.active && !request_.ready;
  if (session_ == nullptr || !(requesting || observe_.active)) return;
  // HandshakeDone() may stamp last_heard_ms_: read the clock after it, or
  // `since` below can be 1 ms ahead of `now` and the difference wraps.
  const bool handshake_done = HandshakeDone();
  const uint64_t now = MonotonicMs();
  if (!handshake_done) {
    if (now - handshake_started_ms_ >= config_.handshake_timeout_ms) {
      FailSession(HandshakeFailure(Status::DeadlineExceeded()),
                  &SessionEnds::handshake_timeouts);
    }
    return;
  }
  if (config_.silence_timeout_ms == 0) return;
  // Silence counts from the later of the server's last datagram and the
  // start of the oldest exchange still waiting for its answer.
  uint64_t since = 0;
  for (const Slot* slot : {&request_, &observe_}) {
    const bool waiting =
        slot == &request_
            ? requesting
            : observe_.active && (!observe_.answered || observe_.fetching);
    if (waiting && (since == 0 || slot->started_ms < since)) {
      since = slot->started_ms;
    }
  }
  if (since == 0) return;
  if (last_heard_ms_ > since) since = last_heard_ms_;
  if (now >= since && now - since >= config_.silence_timeout_ms) {
    FailSession(Status::DeadlineExceeded(), &SessionEnds::silences);
  }
}

void CoapDtlsTransport::FailSession(Status status, uint32_t SessionEnds::*why) {
  OnFailure(status, nullptr, why);
  // Stop libcoap's own retransmissions; keep the results.
  const Slot request = request_;
  const Slot observe = observe_;
  Close();
  request_ = request;
  observe_ = observe;
}

bool CoapDtlsTransport::TakeResult(TransportResult& result) {
  CheckDeadlines();
  if (!request_.ready) return false;
  result = request_.result;
  request_ = Slot{};
  return true;
}

void CoapDtlsTransport::Reconnect() {
  if (session_ != nullptr && !session_failed_) ++session_ends_.refreshes;
  Close();
}

void CoapDtlsTransport::Cancel() {
  if (!request_.active && !request_.ready) return;
  // libcoap may still read a Block1 payload or write into the buffer: only
  // closing the session guarantees it will not.
  const bool in_flight = request_.active && !request_.ready;
  request_ = Slot{};
  if (in_flight) Close();
}

Status CoapDtlsTransport::StartObserve(const char* path,
                                       ByteSpan notification_buffer) {
  if (observe_.active) return Status::FailedPrecondition();
  observe_ = Slot{};
  observe_.buffer = notification_buffer;
  observe_.path = path;
  observe_.started_ms = MonotonicMs();
  return Send(observe_, /*observe=*/true);
}

bool CoapDtlsTransport::TakeNotification(TransportResult& result) {
  CheckDeadlines();
  if (!observe_.ready) return false;
  result = observe_.result;
  observe_.ready = false;
  return true;
}

void CoapDtlsTransport::StopObserve() {
  // Forgetting the token is enough: the next notification is answered with
  // a reset (RST), which deregisters the observer (RFC 7641 section 3.6).
  observe_ = Slot{};
}

StatusWithSize CoapDtlsTransport::Poll(uint32_t timeout_ms) {
  return context_.Poll(timeout_ms);
}

bool CoapDtlsTransport::SameToken(const Token& token, const coap_pdu_t* pdu) {
  const coap_bin_const_t received = coap_pdu_get_token(pdu);
  return received.length == token.size &&
         (token.size == 0 ||
          std::memcmp(received.s, token.bytes, token.size) == 0);
}

void CoapDtlsTransport::Complete(Slot& slot, const TransportResult& result) {
  slot.result = result;
  slot.ready = true;
}

bool CoapDtlsTransport::OnResponse(const coap_pdu_t* received) {
  // An answer to an exchange of ours restarts the silence clock; a pushed
  // notification does not (CoapDtlsConfig::silence_timeout_ms).
  const bool pushed = observe_.active && observe_.answered &&
                      !observe_.fetching && SameToken(observe_.token, received);
  if (!pushed) last_heard_ms_ = MonotonicMs();
  notifications_ += pushed ? 1 : 0;
  if (request_.active && !request_.ready &&
      SameToken(request_.token, received)) {
    if (coap_pdu_get_code(received) == COAP_RESPONSE_CODE(231) &&
        request_.payload.size() > kBlockSize && ContinueUpload(received)) {
      return true;
    }
    Deliver(request_, received, /*notification=*/false);
    return true;
  }
  if (observe_.active && observe_.fetching &&
      SameToken(observe_.fetch_token, received)) {
    Deliver(observe_, received, /*notification=*/false);
    return true;
  }
  if (observe_.active && SameToken(observe_.token, received)) {
    observe_.answered = true;
    coap_opt_iterator_t iterator;
    // No Observe option (or an error code): the observation has ended.
    const bool observing =
        coap_check_option(received, COAP_OPTION_OBSERVE, &iterator) != nullptr;
    if (!observing) observe_.active = false;
    ever_registered_ = ever_registered_ || observing;
    Deliver(observe_, received, /*notification=*/true);
    return true;
  }
  return false;  // a late answer to a cancelled exchange, or a notification
                 // of an observation we stopped
}

void CoapDtlsTransport::Deliver(Slot& slot, const coap_pdu_t* received,
                                bool notification) {
  TransportResult result;
  result.code = static_cast<uint8_t>(coap_pdu_get_code(received));
  result.content_format = ContentFormatOf(received);
  size_t length = 0;
  const uint8_t* data = nullptr;
  if (coap_get_data(received, &length, &data) == 0) length = 0;
  coap_opt_iterator_t iterator;
  const coap_opt_t* etag =
      coap_check_option(received, COAP_OPTION_ETAG, &iterator);
  const size_t etag_size = etag == nullptr ? 0 : coap_opt_length(etag);
  const coap_opt_t* block2 =
      coap_check_option(received, COAP_OPTION_BLOCK2, &iterator);
  size_t offset = 0;
  bool more = false;
  uint32_t num = 0;
  uint32_t szx = 0;
  if (block2 != nullptr) {
    const uint32_t value =
        coap_decode_var_bytes(coap_opt_value(block2), coap_opt_length(block2));
    num = value >> 4;
    more = (value & 0x08u) != 0;
    szx = value & 0x07u;
    offset = static_cast<size_t>(num) << (szx + 4);
  }
  if (notification) {
    // A notification carries a new representation, or its first block
    // (RFC 7959 section 2.6 / 3.4): it replaces whatever was being
    // assembled, and the rest is fetched with GETs without Observe.
    slot.fetching = false;
    slot.block2 = 0;
    slot.received = 0;
    const bool first = block2 == nullptr || (szx != 7 && num == 0);
    // Not the start of a body: wait for the next notification.
    if (!first && slot.active) return;
    if (!first || (more && !slot.active)) {
      // The observation ended (no Observe option) with a partial body:
      // report the end; there is nothing left to fetch for.
      offset = 0;
      length = 0;
      more = false;
    }
  } else if (block2 != nullptr) {
    // A block of a GET (the request's, or the rest of a notification).
    if (szx == 7 || offset != slot.received) return;  // stale or duplicate
    if (offset != 0 && slot.etag_size != 0 && etag_size != 0 &&
        (etag_size != slot.etag_size ||
         std::memcmp(coap_opt_value(etag), slot.etag, etag_size) != 0)) {
      // The resource changed during the transfer (RFC 7959 section 2.4):
      // the blocks so far belong to another body. Start over at block 0.
      slot.received = 0;
      slot.block2 = 0;
      const Status sent = Send(slot, /*observe=*/false);
      if (sent.ok()) return;
      result.status = sent;
      length = 0;
      more = false;
    }
  }
  // Without Block2 the response is a whole body (or an error): it replaces
  // the blocks so far.
  if (offset == 0) {  // block 0 (or a whole body): its ETag, if any
    slot.etag_size = etag_size <= sizeof(slot.etag) ? etag_size : 0;
    if (slot.etag_size != 0) {
      std::memcpy(slot.etag, coap_opt_value(etag), slot.etag_size);
    }
  }
  if (length > 0 && result.status.ok()) {
    if (length > slot.buffer.size() || offset > slot.buffer.size() - length) {
      result.status = Status::ResourceExhausted();
      more = false;
    } else {
      std::memcpy(slot.buffer.data() + offset, data, length);
    }
  }
  slot.received = offset + length;
  if (more) {
    // Block2 (RFC 7959 section 2.4), done here like Block1: GET the next
    // block with a new confirmable request until M = 0.
    slot.block2 = num + 1;
    slot.block2_szx = szx;
    slot.fetching = &slot == &observe_;
    if (slot.fetching) slot.started_ms = MonotonicMs();
    const Status sent = Send(slot, /*observe=*/false);
    if (sent.ok()) return;
    result.status = sent;
  }
  if (result.status.ok()) result.payload_size = slot.received;
  slot.fetching = false;
  slot.block2 = 0;
  slot.received = 0;
  if (&slot == &request_) request_.active = false;
  Complete(slot, result);
}

void CoapDtlsTransport::OnFailure(Status status, const coap_pdu_t* sent,
                                  uint32_t SessionEnds::*why) {
  if (session_ != nullptr && !session_failed_) ++(session_ends_.*why);
  // A DTLS failure after a completed handshake is a lost peer, not a
  // credential problem.
  if (status == Status::Unauthenticated()) {
    status = HandshakeDone() ? Status::Unavailable()
                             : HandshakeFailure(Status::Unavailable());
  }
  // Every failure ends the session, also DEADLINE_EXCEEDED (no answer after
  // the retransmissions): the server may have dropped the session (restart,
  // idle timeout, or it saw our handshake differently after a lost flight)
  // and would ignore this one's records forever. The next exchange opens a
  // new session; the aggregator replaces the old one when the new ClientHello
  // arrives from the same address.
  session_failed_ = true;
  TransportResult result;
  result.status = status;
  const bool matches_request =
      sent != nullptr && request_.active && SameToken(request_.token, sent);
  const bool matches_observe =
      sent != nullptr && observe_.active &&
      (SameToken(observe_.token, sent) ||
       (observe_.fetching && SameToken(observe_.fetch_token, sent)));
  const bool all = !matches_request && !matches_observe;
  if (request_.active && !request_.ready && (all || matches_request)) {
    request_.active = false;
    Complete(request_, result);
  }
  if (observe_.active && (all || matches_observe)) {
    observe_.active = false;
    Complete(observe_, result);
  }
}

}  // namespace edgeadmm::posix
