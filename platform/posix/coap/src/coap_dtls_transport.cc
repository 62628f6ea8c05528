#include "edgeadmm/posix/coap_dtls_transport.h"

#include <arpa/inet.h>
#include <coap3/coap.h>
#include <openssl/ssl.h>
#include <time.h>

#include <cstring>

#include "edgeadmm/result.h"

namespace edgeadmm::posix {
namespace {

constexpr size_t kMaxPathSegment = 255;

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
    out.addr.sin.sin_port = htons(port);
    out.size = sizeof(out.addr.sin);
    return true;
  }
  if (inet_pton(AF_INET6, host, &out.addr.sin6.sin6_addr) == 1) {
    out.addr.sin6.sin6_family = AF_INET6;
    out.addr.sin6.sin6_port = htons(port);
    out.size = sizeof(out.addr.sin6);
    return true;
  }
  return false;
}

// Adds one Uri-Path option per '/'-separated segment of `path`.
bool AddPath(coap_pdu_t* pdu, const char* path) {
  const char* segment = path;
  while (*segment != '\0') {
    const char* end = std::strchr(segment, '/');
    const size_t length = end == nullptr ? std::strlen(segment)
                                         : static_cast<size_t>(end - segment);
    if (length == 0 || length > kMaxPathSegment) return false;
    if (coap_add_option(pdu, COAP_OPTION_URI_PATH, length,
                        reinterpret_cast<const uint8_t*>(segment)) == 0) {
      return false;
    }
    if (end == nullptr) break;
    segment = end + 1;
  }
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

uint64_t MonotonicMs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000u +
         static_cast<uint64_t>(now.tv_nsec) / 1000000u;
}

}  // namespace

CoapDtlsTransport::CoapDtlsTransport(CoapClientContext& context,
                                     const CoapDtlsConfig& config)
    : context_(context), config_(config) {}

CoapDtlsTransport::~CoapDtlsTransport() { Close(); }

void CoapDtlsTransport::Close() {
  request_ = Slot{};
  observe_ = Slot{};
  if (session_ != nullptr) {
    coap_session_set_app_data(session_, nullptr);
    coap_session_release(session_);
    session_ = nullptr;
  }
  handshake_done_ = false;
  session_failed_ = false;
}

Status CoapDtlsTransport::EnsureSession() {
  if (session_ != nullptr && !session_failed_) return Status::Ok();
  if (session_ != nullptr) {  // a failed session is not reused
    coap_session_set_app_data(session_, nullptr);
    coap_session_release(session_);
    session_ = nullptr;
  }
  handshake_done_ = false;
  session_failed_ = false;
  if (context_.raw() == nullptr) return Status::Unavailable();
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
  session_ = coap_new_client_session_psk2(context_.raw(), nullptr, &server,
                                          COAP_PROTO_DTLS, &setup);
  if (session_ == nullptr) return Status::Unavailable();
  coap_session_set_app_data(session_, this);
  handshake_started_ms_ = MonotonicMs();
  coap_fixed_point_t ack_timeout;
  ack_timeout.integer_part =
      static_cast<uint16_t>(config_.ack_timeout_ms / 1000);
  ack_timeout.fractional_part =
      static_cast<uint16_t>(config_.ack_timeout_ms % 1000);
  coap_session_set_ack_timeout(session_, ack_timeout);
  coap_session_set_max_retransmit(session_, config_.max_retransmit);
  return Status::Ok();
}

Status CoapDtlsTransport::Send(CoapMethod method, const char* path,
                               uint16_t content_format, ConstByteSpan payload,
                               bool observe, Slot& slot) {
  if (path == nullptr) return Status::InvalidArgument();
  EDGEADMM_TRY(EnsureSession());
  coap_pdu_t* pdu =
      coap_new_pdu(COAP_MESSAGE_CON, MethodCode(method), session_);
  if (pdu == nullptr) return Status::ResourceExhausted();
  Token token;
  coap_session_new_token(session_, &token.size, token.bytes);
  bool ok = coap_add_token(pdu, token.size, token.bytes) != 0;
  // Options in ascending number order: Observe (6), Uri-Path (11),
  // Content-Format (12); libcoap adds Block1/Size1 itself.
  if (ok && observe) {
    ok = AddUintOption(pdu, COAP_OPTION_OBSERVE, COAP_OBSERVE_ESTABLISH);
  }
  if (ok && !AddPath(pdu, path)) {
    coap_delete_pdu(pdu);
    return Status::InvalidArgument();
  }
  if (ok && !payload.empty()) {
    ok = AddUintOption(pdu, COAP_OPTION_CONTENT_FORMAT, content_format) &&
         coap_add_data_large_request(
             session_, pdu, payload.size(),
             reinterpret_cast<const uint8_t*>(payload.data()), nullptr,
             nullptr) != 0;
  }
  if (!ok) {
    coap_delete_pdu(pdu);
    return Status::ResourceExhausted();
  }
  // Mark the slot first: a failure inside coap_send reports synchronously.
  slot.token = token;
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
  request_ = Slot{};
  request_.buffer = response_buffer;
  return Send(request.method, request.path, request.content_format,
              request.payload, /*observe=*/false, request_);
}

Status CoapDtlsTransport::HandshakeFailure(Status otherwise) const {
  if (session_ == nullptr) return otherwise;
  coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
  void* tls = coap_session_get_tls(session_, &library);
  if (tls == nullptr || library != COAP_TLS_LIBRARY_OPENSSL) return otherwise;
  switch (SSL_get_state(static_cast<const SSL*>(tls))) {
    case TLS_ST_CR_SRVR_DONE:
    case TLS_ST_CW_KEY_EXCH:
    case TLS_ST_CW_CHANGE:
    case TLS_ST_CW_FINISHED:
    case TLS_ST_CR_CHANGE:
    case TLS_ST_CR_FINISHED:
      return Status::Unauthenticated();
    default:
      return otherwise;
  }
}

void CoapDtlsTransport::CheckHandshakeDeadline() {
  const bool waiting = (request_.active && !request_.ready) || observe_.active;
  if (!waiting || session_ == nullptr || handshake_done_) return;
  if (MonotonicMs() - handshake_started_ms_ < config_.handshake_timeout_ms) {
    return;
  }
  const Status failure = HandshakeFailure(Status::DeadlineExceeded());
  OnFailure(failure, nullptr);
  // Stop libcoap's own handshake retransmissions; keep the results.
  const Slot request = request_;
  const Slot observe = observe_;
  Close();
  request_ = request;
  observe_ = observe;
}

bool CoapDtlsTransport::TakeResult(TransportResult& result) {
  CheckHandshakeDeadline();
  if (!request_.ready) return false;
  result = request_.result;
  request_ = Slot{};
  return true;
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
  return Send(CoapMethod::kGet, path, 0, ConstByteSpan(), /*observe=*/true,
              observe_);
}

bool CoapDtlsTransport::TakeNotification(TransportResult& result) {
  CheckHandshakeDeadline();
  if (!observe_.ready) return false;
  result = observe_.result;
  observe_.ready = false;
  return true;
}

void CoapDtlsTransport::StopObserve() {
  if (observe_.active && session_ != nullptr && !session_failed_) {
    coap_binary_t token{observe_.token.size, observe_.token.bytes};
    coap_cancel_observe(session_, &token, COAP_MESSAGE_CON);
  }
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

void CoapDtlsTransport::OnResponse(const coap_pdu_t* received) {
  if (request_.active && !request_.ready &&
      SameToken(request_.token, received)) {
    request_.active = false;
    Deliver(request_, received);
  } else if (observe_.active && SameToken(observe_.token, received)) {
    coap_opt_iterator_t iterator;
    // No Observe option (or an error code): the observation has ended.
    if (coap_check_option(received, COAP_OPTION_OBSERVE, &iterator) ==
        nullptr) {
      observe_.active = false;
    }
    Deliver(observe_, received);
  }
  // Otherwise a late answer to a cancelled exchange: ignored.
}

void CoapDtlsTransport::Deliver(Slot& slot, const coap_pdu_t* received) {
  TransportResult result;
  result.code = static_cast<uint8_t>(coap_pdu_get_code(received));
  result.content_format = ContentFormatOf(received);
  size_t length = 0;
  const uint8_t* data = nullptr;
  size_t offset = 0;
  size_t total = 0;
  if (coap_get_data_large(received, &length, &data, &offset, &total) != 0 &&
      length > 0) {
    if (offset != 0 || length > slot.buffer.size()) {
      result.status = Status::ResourceExhausted();
    } else {
      std::memcpy(slot.buffer.data(), data, length);
      result.payload_size = length;
    }
  }
  Complete(slot, result);
}

void CoapDtlsTransport::OnFailure(Status status, const coap_pdu_t* sent) {
  // A DTLS failure after a completed handshake is a lost peer, not a
  // credential problem.
  if (status == Status::Unauthenticated()) {
    status = handshake_done_ ? Status::Unavailable()
                             : HandshakeFailure(Status::Unavailable());
  }
  if (status == Status::Unauthenticated() || status == Status::Unavailable()) {
    session_failed_ = true;
  }
  TransportResult result;
  result.status = status;
  const bool matches_request =
      sent != nullptr && request_.active && SameToken(request_.token, sent);
  const bool matches_observe =
      sent != nullptr && observe_.active && SameToken(observe_.token, sent);
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
