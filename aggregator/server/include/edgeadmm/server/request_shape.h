// RequestShape: the options and payload a request to each of the daemon's
// resources may carry, judged once, before the request is served.
//
// libcoap 4.3.1 keys what it keeps per session on the request's options: a
// stored Block2 body (lg_xmit) on (resource, method, Uri-Query), an Observe
// registration on a digest of every option but ETag and the NoCacheKey ones
// (RFC 7252 5.4.2). So one enrolled device that varied the Uri-Query made
// the daemon keep a copy of the model per query (5,000 GETs: 14.6 MB ->
// 176 MB) and register an observer per variant (20,000 in 15 s), each
// renewed every round (issue 32 items 1 and 2). The protocol
// (docs/protocol.md) uses no query but a job or round selector and no
// option beyond the ones below, so every other shape is refused, and
// libcoap drops what it kept for a refused request (the observer; no Block2
// body is made). What remains is one observer and one stored body per
// resource per session, and per hosted job for the selectors (a name the
// gateway does not host is answered 4.04, which ends its observer).
//
// Accepted, per resource (each at most once, except Uri-Path), besides
// Uri-Port when it is the daemon's own port (generic clients such as
// coap-client send it; one value, so one key):
//   v1/task   GET   Observe (0 or 1, shortest encoding), Block2, Size2,
//                   Uri-Query job=<name>; no Block2 on a registration (it
//                   would be part of the observer's key)
//   v1/task/<name>  GET  as v1/task but no Uri-Query (the path names the
//                   job)
//   v1/update POST  Content-Format, Block1, Size1
//   v1/model, v1/status  GET  Block2, Size2, Uri-Query job=<name>
//   v1/secagg/round  GET  Uri-Query round=<id>
//   v1/secagg/<phase>  POST  Content-Format, Block1, Size1, Block2 (libcoap
//                   serves a stored answer's later blocks; a request for
//                   one it no longer holds reaches the handler: 4.08 if it
//                   continues a Block1 body, else the answer anew)
// and no payload on a GET. Refused shapes: 4.02 Bad Option (RFC 7252
// 5.4.1, also for an elective option the protocol does not use) or 4.00.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgeadmm::server {

enum class Resource {
  kTask,     // v1/task
  kJobTask,  // v1/task/<name>
  kUpdate,
  kModel,
  kStatus,
  kSecAggRound,
  kSecAgg
};

// One option of a request as received (number, raw value bytes).
struct RequestOption {
  uint16_t number = 0;
  std::vector<uint8_t> value;
};

struct ShapeVerdict {
  uint8_t code = 0;  // 0: accepted; else the CoAP code to answer
  const char* reason = "";
};

// `own_port`: the port the daemon listens on.
ShapeVerdict CheckRequestShape(Resource resource,
                               const std::vector<RequestOption>& options,
                               size_t payload_length, uint16_t own_port);

}  // namespace edgeadmm::server
