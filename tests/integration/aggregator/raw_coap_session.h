// RawCoapSession: a device's DTLS-PSK session driven through libcoap
// directly, so that a test can send requests of any shape (options,
// payload) the device transports would never make, one at a time.
#pragma once

#include <coap3/coap.h>

#include <cstdint>
#include <string>
#include <vector>

namespace edgeadmm::testing {

struct RawAnswer {
  int code = -1;         // CoAP code (class*32 + detail); -1: none in time
  int64_t max_age = -1;  // Max-Age option; -1: absent
  bool observe = false;  // the answer carries Observe (a registration held)
  uint64_t size1 = 0;    // Size1 option (on a 4.13: the largest body)
};

struct RawOption {
  uint16_t number = 0;
  std::vector<uint8_t> value;
};

class RawCoapSession {
 public:
  RawCoapSession(unsigned port, const std::string& identity,
                 const std::vector<uint8_t>& key);
  ~RawCoapSession();
  RawCoapSession(const RawCoapSession&) = delete;
  RawCoapSession& operator=(const RawCoapSession&) = delete;
  bool ok() const { return session_ != nullptr; }

  // Sends one confirmable request to `path` ("v1/task") with `options`
  // (any order; libcoap sorts them) and `payload`, and waits up to
  // `timeout_ms` for its answer.
  RawAnswer Request(coap_pdu_code_t method, const std::string& path,
                    const std::vector<RawOption>& options,
                    const std::vector<uint8_t>& payload = {},
                    int timeout_ms = 5000);
  // Sends `message`, a whole CoAP message as bytes (header, token, options,
  // payload) that libcoap's option API could not make (e.g. an option
  // repeated), and waits for its answer as Request does.
  RawAnswer RequestBytes(const std::vector<uint8_t>& message,
                         int timeout_ms = 5000);
  // A message id for RequestBytes.
  uint16_t NewMessageId() { return coap_new_message_id(session_); }

 private:
  RawAnswer SendAndWait(coap_pdu_t* pdu, int timeout_ms);
  static coap_response_t OnResponse(coap_session_t* session,
                                    const coap_pdu_t* sent,
                                    const coap_pdu_t* received,
                                    const coap_mid_t mid);
  coap_context_t* context_ = nullptr;
  coap_session_t* session_ = nullptr;
  std::vector<uint8_t> identity_;
  std::vector<uint8_t> key_;
  std::vector<uint8_t> waiting_token_;
  RawAnswer answer_;
  bool answered_ = false;
};

// An option whose value is the shortest encoding of `value`.
RawOption UintOption(uint16_t number, uint32_t value);
// An option whose value is `text`'s bytes.
RawOption TextOption(uint16_t number, const std::string& text);

}  // namespace edgeadmm::testing
