#include "edgeadmm/server/request_shape.h"

#include <algorithm>

#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm::server {
namespace {

// RFC 7252 table 4 and RFC 7959 / 7641 numbers.
constexpr uint16_t kObserve = 6;
constexpr uint16_t kUriPort = 7;
constexpr uint16_t kUriPath = 11;
constexpr uint16_t kUriQuery = 15;  // job=<name>, or round=<id> in phase 0
constexpr uint16_t kContentFormat = 12;
constexpr uint16_t kBlock2 = 23;
constexpr uint16_t kBlock1 = 27;
constexpr uint16_t kSize2 = 28;
constexpr uint16_t kSize1 = 60;

// Whether `value` is `port` in the shortest uint encoding.
bool IsPort(const std::vector<uint8_t>& value, uint16_t port) {
  const std::vector<uint8_t> expected =
      port > 0xff ? std::vector<uint8_t>{static_cast<uint8_t>(port >> 8),
                                         static_cast<uint8_t>(port & 0xff)}
      : port > 0  ? std::vector<uint8_t>{static_cast<uint8_t>(port)}
                  : std::vector<uint8_t>{};
  return value == expected;
}

// Whether a Uri-Query value is `<key>...` with a non-empty value.
template <size_t N>
bool HasKey(const std::vector<uint8_t>& value, const char (&key)[N]) {
  return value.size() > N - 1 && std::equal(key, key + N - 1, value.begin());
}

// Whether a Uri-Query value is the resource's selector: phase 0's
// `round=...` (GetSecAggRound parses the id), else `job=...` (the handler
// checks the name).
bool IsSelector(Resource resource, const std::vector<uint8_t>& value) {
  return resource == Resource::kSecAggRound ? HasKey(value, "round=")
                                            : HasKey(value, "job=");
}

bool Allowed(Resource resource, uint16_t number) {
  if (number == kUriPort) return true;  // checked against the own port
  switch (resource) {
    case Resource::kTask:
      return number == kObserve || number == kUriQuery || number == kBlock2 ||
             number == kSize2;
    case Resource::kJobTask:
      return number == kObserve || number == kBlock2 || number == kSize2;
    case Resource::kUpdate:
      return number == kContentFormat || number == kBlock1 || number == kSize1;
    case Resource::kModel:
    case Resource::kStatus:
      return number == kUriQuery || number == kBlock2 || number == kSize2;
    case Resource::kSecAggRound:
      return number == kUriQuery;
    case Resource::kSecAgg:
      return number == kContentFormat || number == kBlock1 ||
             number == kSize1 || number == kBlock2;
  }
  return false;
}

ShapeVerdict Refuse(uint8_t code, const char* reason) {
  return ShapeVerdict{code, reason};
}

}  // namespace

ShapeVerdict CheckRequestShape(Resource resource,
                               const std::vector<RequestOption>& options,
                               size_t payload_length, uint16_t own_port) {
  const RequestOption* observe = nullptr;
  bool block2 = false;
  uint16_t previous = 0;
  for (const RequestOption& option : options) {
    if (option.number == kUriPath) continue;  // libcoap routed on it
    if (option.number == kUriPort && !IsPort(option.value, own_port)) {
      return Refuse(wire::CoapCode(4, 2), "Uri-Port is not this server's");
    }
    if (!Allowed(resource, option.number)) {
      return Refuse(wire::CoapCode(4, 2), "option not part of the protocol");
    }
    if (option.number == kUriQuery && !IsSelector(resource, option.value)) {
      return Refuse(wire::CoapCode(4, 2),
                    resource == Resource::kSecAggRound
                        ? "Uri-Query other than round=<id>"
                        : "Uri-Query other than job=<name>");
    }
    // Options arrive in ascending order, so a repeat follows its first.
    if (option.number == previous) {
      return Refuse(wire::CoapCode(4, 2), "option repeated");
    }
    previous = option.number;
    if (option.number == kObserve) observe = &option;
    if (option.number == kBlock2) block2 = true;
  }
  if (observe != nullptr) {
    // Register (0) or deregister (1), each in its shortest encoding: other
    // spellings of 0 would be other observer keys.
    const bool zero = observe->value.empty();
    const bool one = observe->value.size() == 1 && observe->value[0] == 1;
    if (!zero && !one) return Refuse(wire::kCoapBadRequest, "bad Observe");
    if (zero && block2) {
      return Refuse(wire::kCoapBadRequest, "Block2 on an Observe registration");
    }
  }
  if (resource != Resource::kUpdate && resource != Resource::kSecAgg &&
      payload_length != 0) {
    return Refuse(wire::kCoapBadRequest, "payload on a GET");
  }
  return ShapeVerdict{};
}

}  // namespace edgeadmm::server
