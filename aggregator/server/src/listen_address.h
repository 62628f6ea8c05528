// The daemon's listen address as libcoap takes it, and the port libcoap
// bound (private to the server library).
#pragma once

#include <coap3/coap.h>

#include <cstdint>
#include <string>

namespace edgeadmm::server {

// `text` (an IPv6 or IPv4 literal) and `port` as a libcoap address; false
// if `text` is neither.
bool ParseListenAddress(const std::string& text, uint16_t port,
                        coap_address_t& address);

// The port `endpoint` is bound to (`asked` unless it was 0).
uint16_t BoundPort(coap_endpoint_t* endpoint, uint16_t asked);

}  // namespace edgeadmm::server
