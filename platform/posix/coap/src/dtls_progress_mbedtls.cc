#include <coap3/coap.h>
#include <mbedtls/ssl.h>

#include "dtls_progress.h"

namespace edgeadmm::posix::internal {

bool DtlsPastServerHello(const coap_session_t* session) {
  coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
  void* tls = coap_session_get_tls(session, &library);
  if (tls == nullptr || library != COAP_TLS_LIBRARY_MBEDTLS) return false;
  // Mbed TLS 2.28: `state` is the next handshake step. Past
  // SERVER_HELLO_DONE the client has parsed the server's flight and sends
  // (or has sent) its key exchange; it then waits for the server's
  // ChangeCipherSpec/Finished, which a server holding another key never sends.
  const int state = static_cast<const mbedtls_ssl_context*>(tls)->state;
  return state > MBEDTLS_SSL_SERVER_HELLO_DONE &&
         state < MBEDTLS_SSL_HANDSHAKE_OVER;
}

}  // namespace edgeadmm::posix::internal
