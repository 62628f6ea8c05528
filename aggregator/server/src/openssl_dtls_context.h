// The daemon's hold on libcoap's OpenSSL DTLS context (private to the
// server library). libcoap 4.3 makes one SSL_CTX per context and hands out
// only a session's SSL object; TakeOverDtlsContext reaches the SSL_CTX and
// sets it up: OpenSSL's cookie check pointed at HandshakeAdmission, no
// session resumption, the end of the sessions libcoap frees without an
// event, and records written no longer than a CoAP message (a session's
// write buffer of about 1.5 KiB instead of 17 KiB).
#pragma once

#include <coap3/coap.h>

#include <cstdint>

#include "edgeadmm/status.h"

namespace edgeadmm::server {

// Called for a server session that libcoap is about to free without
// COAP_EVENT_SERVER_SESSION_DEL: SSL_accept refused the ClientHello whose
// cookie DTLSv1_listen had just passed (a cipher suite or extension
// OpenSSL will not take), and coap_dtls_new_server_session frees the
// session it made for it at once.
using UnannouncedSessionEnd = void (*)(coap_session_t* session);

// Sets up the DTLS SSL_CTX of `context` (a client session made for the
// purpose gives the SSL_CTX; its ClientHello goes to a socket of its own on
// 127.0.0.1 that is closed unread, so no answer to it can reach anyone).
// INTERNAL if libcoap does not run on OpenSSL; UNAVAILABLE if the session
// cannot be made.
Status TakeOverDtlsContext(coap_context_t* context,
                           UnannouncedSessionEnd on_unannounced_end);

// No resumption and the record length limit on `session`'s SSL object: for
// the SSL object libcoap made before TakeOverDtlsContext (each context's
// first listener, which becomes its first session); later ones take both
// from the SSL_CTX.
void ApplySessionSettings(coap_session_t* session);

}  // namespace edgeadmm::server
