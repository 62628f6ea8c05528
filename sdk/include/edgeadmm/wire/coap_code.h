// CoAP response codes of the protocol and their mapping to Status
// (docs/protocol.md, "Response codes"). A code is class * 32 + detail, as on
// the wire: 2.05 is 0x45.
#pragma once

#include <cstdint>

#include "edgeadmm/status.h"

namespace edgeadmm::wire {

// Builds a CoAP code from its class and detail, e.g. CoapCode(4, 13).
constexpr uint8_t CoapCode(unsigned code_class, unsigned detail) {
  return static_cast<uint8_t>((code_class << 5) | detail);
}

// 2.03 Valid: a task notification without a task (the aggregator cannot
// serve this observation any more; the device registers again and learns
// why). docs/protocol.md, "Observe".
inline constexpr uint8_t kCoapValid = CoapCode(2, 3);
inline constexpr uint8_t kCoapChanged = CoapCode(2, 4);
inline constexpr uint8_t kCoapContent = CoapCode(2, 5);
inline constexpr uint8_t kCoapContinue = CoapCode(2, 31);
inline constexpr uint8_t kCoapBadRequest = CoapCode(4, 0);
inline constexpr uint8_t kCoapUnauthorized = CoapCode(4, 1);
// 4.02 Bad Option: a critical option the request may carry once came twice
// (RFC 7252 section 5.4.5).
inline constexpr uint8_t kCoapBadOption = CoapCode(4, 2);
inline constexpr uint8_t kCoapForbidden = CoapCode(4, 3);
inline constexpr uint8_t kCoapNotFound = CoapCode(4, 4);
inline constexpr uint8_t kCoapMethodNotAllowed = CoapCode(4, 5);
inline constexpr uint8_t kCoapRequestEntityIncomplete = CoapCode(4, 8);
inline constexpr uint8_t kCoapConflict = CoapCode(4, 9);
inline constexpr uint8_t kCoapPreconditionFailed = CoapCode(4, 12);
inline constexpr uint8_t kCoapRequestEntityTooLarge = CoapCode(4, 13);
inline constexpr uint8_t kCoapUnsupportedContentFormat = CoapCode(4, 15);
inline constexpr uint8_t kCoapTooManyRequests = CoapCode(4, 29);
inline constexpr uint8_t kCoapInternalServerError = CoapCode(5, 0);
inline constexpr uint8_t kCoapServiceUnavailable = CoapCode(5, 3);

// The Status a device reports for a response code: 2.xx -> OK, the codes
// above -> their documented Status, any other 4.xx -> INVALID_ARGUMENT, any
// other 5.xx -> UNAVAILABLE, anything else -> UNKNOWN.
Status StatusFromCoapCode(uint8_t code);

// The response code the aggregator sends for a Status (the inverse of
// StatusFromCoapCode on the documented codes; OK -> 2.04 Changed).
uint8_t CoapCodeFromStatus(Status status);

}  // namespace edgeadmm::wire
