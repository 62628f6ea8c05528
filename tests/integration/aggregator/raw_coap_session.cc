#include "raw_coap_session.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::testing {

RawCoapSession::RawCoapSession(unsigned port, const std::string& identity,
                               const std::vector<uint8_t>& key)
    : identity_(identity.begin(), identity.end()), key_(key) {
  coap_startup();
  context_ = coap_new_context(nullptr);
  if (context_ == nullptr) return;
  coap_register_response_handler(context_, &OnResponse);
  coap_address_t server;
  coap_address_init(&server);
  server.addr.sin.sin_family = AF_INET;
  server.addr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  server.size = sizeof(server.addr.sin);
  coap_address_set_port(&server, static_cast<uint16_t>(port));
  coap_dtls_cpsk_t setup{};
  setup.version = COAP_DTLS_CPSK_SETUP_VERSION;
  setup.psk_info.identity = {identity_.size(), identity_.data()};
  setup.psk_info.key = {key_.size(), key_.data()};
  session_ = coap_new_client_session_psk2(context_, nullptr, &server,
                                          COAP_PROTO_DTLS, &setup);
  if (session_ != nullptr) coap_session_set_app_data(session_, this);
}

RawCoapSession::~RawCoapSession() {
  if (session_ != nullptr) coap_session_release(session_);
  if (context_ != nullptr) coap_free_context(context_);
}

RawAnswer RawCoapSession::Request(coap_pdu_code_t method,
                                  const std::string& path,
                                  const std::vector<RawOption>& options,
                                  const std::vector<uint8_t>& payload,
                                  int timeout_ms) {
  coap_pdu_t* pdu = coap_new_pdu(COAP_MESSAGE_CON, method, session_);
  if (pdu == nullptr) return RawAnswer{};
  uint8_t token[8];
  size_t token_size = 0;
  coap_session_new_token(session_, &token_size, token);
  coap_add_token(pdu, token_size, token);
  waiting_token_.assign(token, token + token_size);
  coap_optlist_t* list = nullptr;
  for (size_t start = 0; start <= path.size();) {
    const size_t slash = path.find('/', start);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    coap_insert_optlist(
        &list, coap_new_optlist(
                   COAP_OPTION_URI_PATH, end - start,
                   reinterpret_cast<const uint8_t*>(path.data() + start)));
    start = end + 1;
  }
  for (const RawOption& option : options) {
    coap_insert_optlist(&list, coap_new_optlist(option.number,
                                                option.value.size(),
                                                option.value.data()));
  }
  coap_add_optlist_pdu(pdu, &list);
  coap_delete_optlist(list);
  if (!payload.empty()) coap_add_data(pdu, payload.size(), payload.data());
  return SendAndWait(pdu, timeout_ms);
}

RawAnswer RawCoapSession::RequestBytes(const std::vector<uint8_t>& message,
                                       int timeout_ms) {
  coap_pdu_t* pdu = coap_pdu_init(COAP_MESSAGE_CON, COAP_REQUEST_CODE_GET, 0,
                                  message.size());
  if (pdu == nullptr) return RawAnswer{};
  if (!coap_pdu_parse(COAP_PROTO_UDP, message.data(), message.size(), pdu)) {
    coap_delete_pdu(pdu);
    return RawAnswer{};
  }
  const coap_bin_const_t token = coap_pdu_get_token(pdu);
  waiting_token_.clear();
  if (token.length != 0) {
    waiting_token_.assign(token.s, token.s + token.length);
  }
  return SendAndWait(pdu, timeout_ms);
}

RawAnswer RawCoapSession::SendAndWait(coap_pdu_t* pdu, int timeout_ms) {
  answer_ = RawAnswer{};
  answered_ = false;
  if (coap_send(session_, pdu) == COAP_INVALID_MID) return answer_;
  const uint64_t start = posix::MonotonicMs();
  while (!answered_ &&
         posix::MonotonicMs() - start < static_cast<uint64_t>(timeout_ms)) {
    coap_io_process(context_, 20);
  }
  return answer_;
}

coap_response_t RawCoapSession::OnResponse(coap_session_t* session,
                                           const coap_pdu_t*,
                                           const coap_pdu_t* received,
                                           const coap_mid_t) {
  auto* self = static_cast<RawCoapSession*>(coap_session_get_app_data(session));
  const coap_bin_const_t token = coap_pdu_get_token(received);
  // A message without a token has token.s null: compare only real bytes.
  if (self == nullptr || token.length != self->waiting_token_.size() ||
      (token.length != 0 &&
       std::memcmp(token.s, self->waiting_token_.data(), token.length) != 0)) {
    return COAP_RESPONSE_OK;  // a notification of an earlier registration
  }
  RawAnswer& a = self->answer_;
  a.code = coap_pdu_get_code(received);
  coap_opt_iterator_t it;
  if (const coap_opt_t* o =
          coap_check_option(received, COAP_OPTION_MAXAGE, &it)) {
    a.max_age = coap_decode_var_bytes(coap_opt_value(o), coap_opt_length(o));
  }
  a.observe = coap_check_option(received, COAP_OPTION_OBSERVE, &it) != nullptr;
  if (const coap_opt_t* o =
          coap_check_option(received, COAP_OPTION_SIZE1, &it)) {
    a.size1 = coap_decode_var_bytes8(coap_opt_value(o), coap_opt_length(o));
  }
  self->answered_ = true;
  return COAP_RESPONSE_OK;
}

RawOption UintOption(uint16_t number, uint32_t value) {
  uint8_t bytes[4];
  const unsigned size = coap_encode_var_safe(bytes, sizeof(bytes), value);
  return RawOption{number, std::vector<uint8_t>(bytes, bytes + size)};
}

RawOption TextOption(uint16_t number, const std::string& text) {
  return RawOption{number, std::vector<uint8_t>(text.begin(), text.end())};
}

}  // namespace edgeadmm::testing
