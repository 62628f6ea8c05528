#include <coap3/coap.h>
#include <openssl/ssl.h>

#include "dtls_progress.h"

namespace edgeadmm::posix::internal {

bool DtlsPastServerHello(const coap_session_t* session) {
  coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
  void* tls = coap_session_get_tls(session, &library);
  if (tls == nullptr || library != COAP_TLS_LIBRARY_OPENSSL) return false;
  switch (SSL_get_state(static_cast<const SSL*>(tls))) {
    case TLS_ST_CR_SRVR_DONE:
    case TLS_ST_CW_KEY_EXCH:
    case TLS_ST_CW_CHANGE:
    case TLS_ST_CW_FINISHED:
    case TLS_ST_CR_CHANGE:
    case TLS_ST_CR_FINISHED:
      return true;
    default:
      return false;
  }
}

}  // namespace edgeadmm::posix::internal
