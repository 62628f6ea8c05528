// A TransportRequest path ("v1/task", or "v1/task?job=alpha") as the
// Uri-Path and Uri-Query options of a libcoap PDU.
#pragma once

#include <coap3/coap.h>

namespace edgeadmm::posix {

// Adds one Uri-Path option per '/'-separated segment of `path` up to a '?';
// false for an empty or over-long segment, or a failed add.
bool AddPath(coap_pdu_t* pdu, const char* path);
// Adds what follows a '?' in `path` as one Uri-Query option (none without
// a '?'); false for an empty or over-long query, or a failed add.
bool AddQuery(coap_pdu_t* pdu, const char* path);

}  // namespace edgeadmm::posix
