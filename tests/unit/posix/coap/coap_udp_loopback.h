// Plain CoAP over UDP on 127.0.0.1 for the libcoap I/O tests and benchmark:
// a context with one endpoint and a GET resource "t" that counts its
// requests, and the six-byte NON GET /t datagram that exercises it.
#pragma once

#include <arpa/inet.h>
#include <coap3/coap.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace edgeadmm::posix::coap_loopback {

// Requests the "t" resources have answered, over every context (contexts
// may run on several threads).
inline std::atomic<long>& HandledRequests() {
  static std::atomic<long> handled{0};
  return handled;
}

inline void CountGet(coap_resource_t*, coap_session_t*, const coap_pdu_t*,
                     const coap_string_t*, coap_pdu_t* response) {
  ++HandledRequests();
  coap_pdu_set_code(response, COAP_RESPONSE_CODE_CONTENT);
}

// A new context with a UDP endpoint on 127.0.0.1 (an ephemeral port, stored
// in *port) serving "t"; null on failure.
inline coap_context_t* NewLoopbackUdpContext(uint16_t* port) {
  coap_context_t* context = coap_new_context(nullptr);
  if (context == nullptr) return nullptr;
  coap_address_t address;
  coap_address_init(&address);
  address.addr.sin.sin_family = AF_INET;
  address.addr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.size = sizeof(address.addr.sin);
  coap_endpoint_t* endpoint =
      coap_new_endpoint(context, &address, COAP_PROTO_UDP);
  if (endpoint == nullptr) {
    coap_free_context(context);
    return nullptr;
  }
  const char* text = coap_endpoint_str(endpoint);
  *port = static_cast<uint16_t>(std::atoi(std::strrchr(text, ':') + 1));
  coap_resource_t* r = coap_resource_init(coap_make_str_const("t"), 0);
  coap_register_handler(r, COAP_REQUEST_GET, &CountGet);
  coap_add_resource(context, r);
  return context;
}

// Sends NON GET /t (version 1, no token) with message id `mid` from `fd` to
// 127.0.0.1:`port`; false unless the whole datagram was sent.
inline bool SendNonGet(int fd, uint16_t port, uint16_t mid) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(port);
  const uint8_t datagram[] = {
      0x50, 0x01, static_cast<uint8_t>(mid >> 8), static_cast<uint8_t>(mid),
      0xb1, 't'};
  return sendto(fd, datagram, sizeof(datagram), 0,
                reinterpret_cast<const sockaddr*>(&to),
                sizeof(to)) == static_cast<ssize_t>(sizeof(datagram));
}

}  // namespace edgeadmm::posix::coap_loopback
