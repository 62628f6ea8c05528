#include "listen_address.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>

namespace edgeadmm::server {

bool ParseListenAddress(const std::string& text, uint16_t port,
                        coap_address_t& address) {
  coap_address_init(&address);
  if (inet_pton(AF_INET6, text.c_str(), &address.addr.sin6.sin6_addr) == 1) {
    address.addr.sin6.sin6_family = AF_INET6;
    address.size = sizeof(address.addr.sin6);
  } else if (inet_pton(AF_INET, text.c_str(), &address.addr.sin.sin_addr) ==
             1) {
    address.addr.sin.sin_family = AF_INET;
    address.size = sizeof(address.addr.sin);
  } else {
    return false;
  }
  coap_address_set_port(&address, port);
  return true;
}

uint16_t BoundPort(coap_endpoint_t* endpoint, uint16_t asked) {
  if (const char* text = coap_endpoint_str(endpoint)) {
    // "[::]:5684" or "0.0.0.0:5684": the bound port follows the last ':'.
    const char* colon = std::strrchr(text, ':');
    if (colon != nullptr) return static_cast<uint16_t>(std::atoi(colon + 1));
  }
  return asked;
}

}  // namespace edgeadmm::server
