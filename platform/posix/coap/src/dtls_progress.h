// How far a client's DTLS handshake got, read from the TLS library libcoap was
// built with: the one backend-specific piece of the POSIX CoAP transport
// (dtls_progress_openssl.cc for Debian's libcoap3, dtls_progress_mbedtls.cc
// for the from-source armhf build; platform/posix/coap/CMakeLists.txt picks).
#pragma once

struct coap_session_t;

namespace edgeadmm::posix::internal {

// True if the session's handshake is past the server's hello flight
// (ServerHelloDone received, our key exchange and Finished sent or being
// sent) without being complete: the server has seen our PSK identity. False
// before that, after it, or when the session has no TLS state of the
// expected library.
bool DtlsPastServerHello(const coap_session_t* session);

}  // namespace edgeadmm::posix::internal
