// The CoAP options a Response carries besides its Content-Format: Max-Age
// (when a 5.03 may be retried) and Size1 (the largest body a 4.13 accepts).
#pragma once

#include "edgeadmm/server/request_handler.h"

struct coap_pdu_t;

namespace edgeadmm::server {

// Adds r.max_age and r.size1 to `pdu`, each unless 0.
void AddResponseOptions(coap_pdu_t* pdu, const Response& r);

}  // namespace edgeadmm::server
