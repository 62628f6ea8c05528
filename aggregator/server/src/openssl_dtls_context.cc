#include "openssl_dtls_context.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "edgeadmm/registry/secure_random.h"
#include "edgeadmm/server/handshake_admission.h"

namespace edgeadmm::server {
namespace {

// The largest plaintext a server session writes in one DTLS record.
constexpr long kLargestRecordWritten = COAP_DEFAULT_MTU;

// Session tickets: none issued, none accepted (0: "no ticket", a full
// handshake follows).
int NoTicket(SSL*, unsigned char*, unsigned char*, EVP_CIPHER_CTX*,
             EVP_MAC_CTX*, int) {
  return 0;
}

// OpenSSL's cookie callbacks for libcoap's DTLSv1_listen. Every ClientHello
// that reaches it from a new address carries a cookie that
// HandshakeAdmission has just verified for its source address, and that is
// what is checked here. A cookie is generated only if a ClientHello without
// one got through (it should not): a random one, which the admission then
// refuses and answers with its own.
int GenerateCookie(SSL*, unsigned char* cookie, unsigned int* length) {
  if (!registry::FillSecureRandom(cookie, HandshakeAdmission::kCookieSize)
           .ok()) {
    return 0;
  }
  *length = HandshakeAdmission::kCookieSize;
  return 1;
}
int VerifyCookie(SSL*, const unsigned char* cookie, unsigned int length) {
  return HandshakeAdmission::VerifyPassedCookie(cookie, length) ? 1 : 0;
}

// libcoap's info callback of its DTLS contexts (the same function for every
// context), which Info calls on, and whom Info tells of an unannounced end
// (the same for every context too).
void (*libcoap_info)(const SSL*, int, int) = nullptr;
UnannouncedSessionEnd unannounced_end = nullptr;

// OpenSSL's info callback of the DTLS contexts: libcoap's, and the end of a
// session libcoap frees without an event (UnannouncedSessionEnd). Without
// it the admission would pass that address unanswered for ever (and
// OpenSSL's cookie check refuse its every ClientHello), the janitor would
// walk a freed session and the metrics count it alive. SSL_accept meets a
// server session in state NONE only in coap_dtls_new_server_session (later
// records find it in HANDSHAKE), so a refusing exit there is that end.
void Info(const SSL* ssl, int where, int ret) {
  // libcoap's test of SSL_accept's result (coap_dtls_new_server_session).
  const auto refused = [&] {
    const int error = ret < 0 ? SSL_get_error(ssl, ret) : SSL_ERROR_SSL;
    return ret == 0 ||
           (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE);
  };
  if ((where & SSL_CB_ACCEPT_EXIT) == SSL_CB_ACCEPT_EXIT && ret <= 0 &&
      refused()) {
    auto* session = static_cast<coap_session_t*>(SSL_get_app_data(ssl));
    if (session != nullptr && unannounced_end != nullptr &&
        coap_session_get_type(session) == COAP_SESSION_TYPE_SERVER &&
        coap_session_get_state(session) == COAP_SESSION_STATE_NONE) {
      unannounced_end(session);
    }
  }
  if (libcoap_info != nullptr) libcoap_info(ssl, where, ret);
}

// A UDP socket on 127.0.0.1 that nobody reads: the takeover's client
// session sends its ClientHello (and its close_notify) there, and closing
// it discards them. That ClientHello must not reach the daemon's own
// endpoint: the loop would answer it with a HelloVerifyRequest to a port
// the kernel may meanwhile give a device's socket, and the device would
// take that stray answer for its own (docs/security.md, "Handshake
// floods").
class DatagramSink {
 public:
  DatagramSink() : fd_(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(a);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), size) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &size) != 0) {
      return;
    }
    coap_address_init(&address_);
    address_.addr.sin = a;
    address_.size = sizeof(a);
    bound_ = true;
  }
  ~DatagramSink() {
    if (fd_ >= 0) close(fd_);
  }
  DatagramSink(const DatagramSink&) = delete;
  DatagramSink& operator=(const DatagramSink&) = delete;
  // Null if the socket could not be made.
  const coap_address_t* address() const { return bound_ ? &address_ : nullptr; }

 private:
  int fd_;
  bool bound_ = false;
  coap_address_t address_{};
};

}  // namespace

Status TakeOverDtlsContext(coap_context_t* context,
                           UnannouncedSessionEnd on_unannounced_end) {
  const DatagramSink sink;
  if (sink.address() == nullptr) return Status::Unavailable();
  static const uint8_t kIdentity[] = "edgeadmm-startup";
  static const uint8_t kKey[16] = {};
  coap_dtls_cpsk_t setup;
  std::memset(&setup, 0, sizeof(setup));
  setup.version = COAP_DTLS_CPSK_SETUP_VERSION;
  setup.psk_info.identity = {sizeof(kIdentity) - 1, kIdentity};
  setup.psk_info.key = {sizeof(kKey), kKey};
  coap_session_t* session = coap_new_client_session_psk2(
      context, nullptr, sink.address(), COAP_PROTO_DTLS, &setup);
  if (session == nullptr) return Status::Unavailable();
  coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
  void* tls = coap_session_get_tls(session, &library);
  Status status = Status::Internal();
  if (tls != nullptr && library == COAP_TLS_LIBRARY_OPENSSL) {
    SSL_CTX* ctx = SSL_get_SSL_CTX(static_cast<SSL*>(tls));
    SSL_CTX_set_cookie_generate_cb(ctx, &GenerateCookie);
    SSL_CTX_set_cookie_verify_cb(ctx, &VerifyCookie);
    if (auto* info = SSL_CTX_get_info_callback(ctx); info != &Info) {
      libcoap_info = info;
    }
    unannounced_end = on_unannounced_end;
    SSL_CTX_set_info_callback(ctx, &Info);
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, &NoTicket);
    SSL_CTX_set_session_cache_mode(
        ctx, SSL_SESS_CACHE_OFF | SSL_SESS_CACHE_NO_INTERNAL);
    // Each record the server writes holds one CoAP message of at most
    // libcoap's session MTU (the daemon sets no other), or a handshake
    // fragment, which OpenSSL cuts to this length too: every later SSL
    // object's write buffer is sized to it, not to a 16 KiB record.
    static_assert(kLargestRecordWritten >= 512, "OpenSSL's minimum");
    SSL_CTX_set_max_send_fragment(ctx, kLargestRecordWritten);
    status = Status::Ok();
  }
  // As the device transport releases a session (coap_dtls_transport.cc).
  coap_session_disconnected(session, COAP_NACK_NOT_DELIVERABLE);
  coap_session_release(session);
  return status;
}

void ApplySessionSettings(coap_session_t* session) {
  // A resumed handshake (session ticket or session id) skips the PSK
  // lookup, so a revoked or re-keyed device could come back.
  coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
  void* tls = coap_session_get_tls(session, &library);
  if (tls == nullptr || library != COAP_TLS_LIBRARY_OPENSSL) return;
  SSL* ssl = static_cast<SSL*>(tls);
  SSL_set_options(ssl, SSL_OP_NO_TICKET);
  // Its write buffer is made already; the limit keeps the session's
  // records like every other session's.
  SSL_set_max_send_fragment(ssl, kLargestRecordWritten);
}

}  // namespace edgeadmm::server
