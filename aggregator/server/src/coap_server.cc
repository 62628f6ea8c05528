#include "edgeadmm/server/coap_server.h"

#include <arpa/inet.h>
#include <coap3/coap.h>
#include <dirent.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/log.h"
#include "edgeadmm/posix/coap_batched_io.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/registry/secure_random.h"
#include "edgeadmm/server/dtls_session_janitor.h"
#include "edgeadmm/server/endpoint_read_filter.h"
#include "edgeadmm/server/handshake_admission.h"
#include "edgeadmm/server/response_options.h"
#include "edgeadmm/server/revocation_watch.h"
#include "edgeadmm/server/socket_options.h"
#include "edgeadmm/server/upload_assembler.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::server {

struct CoapServer::Impl {
  coap_context_t* context = nullptr;
  std::unique_ptr<posix::CoapBatchedIo> io;  // null: coap_io_process
  coap_resource_t* task = nullptr;
  registry::DeviceRegistry* registry = nullptr;
  std::unique_ptr<registry::DeviceRegistry> registry_owner;
  // The PSK handed to libcoap by the identity callback (it copies it).
  std::vector<uint8_t> psk;
  coap_bin_const_t psk_bin{0, nullptr};
  // Handed out for an unknown, disabled or ill-formed identity, so that its
  // handshake fails at Finished exactly like a wrong key (silence, no
  // alert): the network cannot tell enrolled ids from others. Random per
  // process, never stored, never any device's key.
  std::vector<uint8_t> decoy_psk;
  // Server DTLS sessions to drop (a stalled handshake, a client that
  // started over), handled outside libcoap's I/O.
  DtlsSessionJanitor janitor;
  // Established sessions, cut when their device is revoked.
  RevocationWatch revocations;
  // Partial v1/update bodies (Block1), bounded by the job.
  UploadAssembler uploads;
  // The cookie exchange and per-source handshake limit in front of
  // libcoap, on the endpoint socket (issue 14 item 1).
  std::optional<HandshakeAdmission> admission;
  int endpoint_fd = -1;
  Impl(store::Database& db, int64_t handshake_timeout_ms)
      : janitor(handshake_timeout_ms), revocations(db) {}
};

// libcoap C callbacks. None of them lets an exception escape: everything
// they call reports errors as Status values.
struct CoapCallbacks {
  static CoapServer* Server(coap_session_t* session) {
    return static_cast<CoapServer*>(
        coap_get_app_data(coap_session_get_context(session)));
  }

  static std::string_view Identity(coap_session_t* session) {
    const coap_bin_const_t* id = coap_session_get_psk_identity(session);
    if (id == nullptr || id->length == 0) return {};
    return std::string_view(reinterpret_cast<const char*>(id->s), id->length);
  }

  // Session tickets: none issued, none accepted (0: "no ticket", a full
  // handshake follows).
  static int NoTicket(SSL*, unsigned char*, unsigned char*, EVP_CIPHER_CTX*,
                      EVP_MAC_CTX*, int) {
    return 0;
  }

  // No DTLS resumption: a resumed handshake (session ticket or session id)
  // skips the PSK lookup, so a revoked or re-keyed device could come back.
  // The SSL_CTX is set at start (TakeOverDtlsContext); the SSL object
  // libcoap made before that (its first listener) gets the option here.
  static void TurnOffResumption(coap_session_t* session) {
    coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
    void* tls = coap_session_get_tls(session, &library);
    if (tls == nullptr || library != COAP_TLS_LIBRARY_OPENSSL) return;
    SSL_set_options(static_cast<SSL*>(tls), SSL_OP_NO_TICKET);
  }

  // OpenSSL's cookie callbacks for libcoap's DTLSv1_listen. Every
  // ClientHello that reaches it from a new address carries a cookie that
  // HandshakeAdmission has just verified for its source address, and that
  // is what is checked here. A cookie is generated only if a ClientHello
  // without one got through (it should not): a random one, which the
  // admission then refuses and answers with its own.
  static int GenerateCookie(SSL*, unsigned char* cookie, unsigned int* length) {
    if (!registry::FillSecureRandom(cookie, HandshakeAdmission::kCookieSize)
             .ok()) {
      return 0;
    }
    *length = HandshakeAdmission::kCookieSize;
    return 1;
  }
  static int VerifyCookie(SSL*, const unsigned char* cookie,
                          unsigned int length) {
    return HandshakeAdmission::VerifyPassedCookie(cookie, length) ? 1 : 0;
  }

  // libcoap makes one DTLS SSL_CTX per context, shared by its server and
  // client sessions, but hands out only a session's SSL object. A client
  // session made for the purpose gives the SSL_CTX before any device
  // connects; its one ClientHello goes to the daemon's own endpoint, whose
  // admission answers it with a HelloVerifyRequest nobody reads.
  static Status TakeOverDtlsContext(coap_context_t* context,
                                    uint16_t own_port) {
    coap_address_t own;
    coap_address_init(&own);
    own.addr.sin.sin_family = AF_INET;
    own.addr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    own.size = sizeof(own.addr.sin);
    coap_address_set_port(&own, own_port);
    static const uint8_t kIdentity[] = "edgeadmm-startup";
    static const uint8_t kKey[16] = {};
    coap_dtls_cpsk_t setup;
    std::memset(&setup, 0, sizeof(setup));
    setup.version = COAP_DTLS_CPSK_SETUP_VERSION;
    setup.psk_info.identity = {sizeof(kIdentity) - 1, kIdentity};
    setup.psk_info.key = {sizeof(kKey), kKey};
    coap_session_t* session = coap_new_client_session_psk2(
        context, nullptr, &own, COAP_PROTO_DTLS, &setup);
    if (session == nullptr) return Status::Unavailable();
    coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
    void* tls = coap_session_get_tls(session, &library);
    Status status = Status::Internal();
    if (tls != nullptr && library == COAP_TLS_LIBRARY_OPENSSL) {
      SSL_CTX* ctx = SSL_get_SSL_CTX(static_cast<SSL*>(tls));
      SSL_CTX_set_cookie_generate_cb(ctx, &GenerateCookie);
      SSL_CTX_set_cookie_verify_cb(ctx, &VerifyCookie);
      SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
      SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, &NoTicket);
      SSL_CTX_set_session_cache_mode(
          ctx, SSL_SESS_CACHE_OFF | SSL_SESS_CACHE_NO_INTERNAL);
      status = Status::Ok();
    }
    // As the device transport releases a session (coap_dtls_transport.cc).
    coap_session_disconnected(session, COAP_NACK_NOT_DELIVERABLE);
    coap_session_release(session);
    return status;
  }

  // DTLS: the PSK for `identity`; the decoy key when the device is unknown,
  // disabled or its id ill-formed, so the handshake fails at the client's
  // Finished as with a wrong key (issue 14 item 7, docs/security.md).
  static const coap_bin_const_t* ValidateIdentity(coap_bin_const_t* identity,
                                                  coap_session_t* session,
                                                  void* arg) {
    auto* server = static_cast<CoapServer*>(arg);
    auto& impl = *server->impl_;
    TurnOffResumption(session);
    const std::string id(reinterpret_cast<const char*>(identity->s),
                         identity->length);
    Result<std::vector<uint8_t>> psk = Status::PermissionDenied();
    if (registry::IsValidDeviceId(id)) psk = impl.registry->LookupPsk(id);
    if (!psk.ok()) {
      // Printable ids only reach the log (IsValidDeviceId); others by length.
      if (registry::IsValidDeviceId(id)) {
        EDGEADMM_LOG_WARN("dtls: refused identity %s: %s", id.c_str(),
                          psk.status().str());
      } else {
        EDGEADMM_LOG_WARN("dtls: refused an ill-formed identity (%zu bytes)",
                          id.size());
      }
      impl.psk_bin = {impl.decoy_psk.size(), impl.decoy_psk.data()};
      return &impl.psk_bin;
    }
    impl.psk = std::move(psk).value();
    impl.psk_bin = {impl.psk.size(), impl.psk.data()};
    impl.revocations.OnKeyChosen(session, impl.psk);
    return &impl.psk_bin;
  }

  // OpenSSL's record callback of a server session: sees every record
  // header, also of records the DTLS layer then drops (an epoch-0
  // ClientHello on an established session is dropped without a word).
  static void Record(int write_p, int, int content_type, const void* buf,
                     size_t len, SSL*, void* arg) {
    if (write_p != 0 || content_type != SSL3_RT_HEADER ||
        !IsFirstClientHelloHeader(static_cast<const uint8_t*>(buf), len)) {
      return;
    }
    auto* session = static_cast<coap_session_t*>(arg);
    Server(session)->impl_->janitor.OnClientStartedOver(
        session, static_cast<int64_t>(posix::MonotonicMs()));
  }

  // libcoap's nack handler: an RST that answers one of the janitor's pings
  // proves the peer still holds its session.
  static void Nack(coap_session_t* session, const coap_pdu_t*,
                   const coap_nack_reason_t reason, const coap_mid_t mid) {
    if (reason != COAP_NACK_RST) return;
    Server(session)->impl_->janitor.OnPingAnswered(session, mid);
  }

  // Installs Record on the session's SSL object (libcoap creates it after
  // COAP_EVENT_SERVER_SESSION_NEW, with the first handshake record).
  static void WatchRecords(coap_session_t* session) {
    coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
    void* tls = coap_session_get_tls(session, &library);
    if (tls == nullptr || library != COAP_TLS_LIBRARY_OPENSSL) return;
    SSL* ssl = static_cast<SSL*>(tls);
    SSL_set_msg_callback(ssl, &Record);
    SSL_set_msg_callback_arg(ssl, session);
  }

  // Tracks handshakes in progress for the janitor and watches each
  // established DTLS server session for a client that starts over.
  static int Event(coap_session_t* session, const coap_event_t event) {
    if (coap_session_get_proto(session) != COAP_PROTO_DTLS) return 0;
    DtlsSessionJanitor& janitor = Server(session)->impl_->janitor;
    RevocationWatch& revocations = Server(session)->impl_->revocations;
    std::optional<HandshakeAdmission>& admission =
        Server(session)->impl_->admission;
    const coap_address_t* peer = coap_session_get_addr_remote(session);
    if (event == COAP_EVENT_SERVER_SESSION_NEW) {
      if (admission && peer != nullptr) {
        admission->OnSessionNew(&peer->addr.sa, peer->size);
      }
      janitor.OnHandshakeStarted(session,
                                 static_cast<int64_t>(posix::MonotonicMs()));
    } else if (event == COAP_EVENT_DTLS_CONNECTED) {
      if (admission && peer != nullptr) {
        admission->OnHandshakeEnded(&peer->addr.sa, peer->size);
      }
      janitor.OnHandshakeEnded(session);
      WatchRecords(session);
      revocations.OnEstablished(session, std::string(Identity(session)));
    } else if (event == COAP_EVENT_DTLS_CLOSED ||
               event == COAP_EVENT_DTLS_ERROR) {
      if (admission && peer != nullptr) {
        admission->OnHandshakeEnded(&peer->addr.sa, peer->size);
      }
      janitor.OnHandshakeEnded(session);
      revocations.OnEnded(session);
    } else if (event == COAP_EVENT_SERVER_SESSION_DEL) {
      Server(session)->impl_->uploads.Forget(session);
      if (admission && peer != nullptr) {
        admission->OnSessionFreed(&peer->addr.sa, peer->size);
      }
      janitor.OnSessionFreed(session);
      revocations.OnEnded(session);
    }
    return 0;
  }

  // PDU ownership (libcoap 4.3.1, server side): the daemon never creates or
  // frees a PDU. libcoap owns the request and the response it passes to a
  // handler, sends the response when the handler returns, and keeps a
  // confirmable one (an Observe notification) in its retransmission queue
  // until it is acknowledged or the session ends. A body handed to
  // coap_add_data_large_response stays ours until libcoap calls Release
  // (on every path, also on failure and when the session is freed). Server
  // sessions are freed by libcoap (idle timeout, coap_free_context), never
  // released by us; the janitor only disconnects them, which ends their
  // queued messages (the client side's rule: coap_dtls_transport.cc).
  static void Release(coap_session_t*, void* app_ptr) {
    delete static_cast<std::vector<uint8_t>*>(app_ptr);
  }

  static void Send(coap_resource_t* resource, coap_session_t* session,
                   const coap_pdu_t* request, const coap_string_t* query,
                   coap_pdu_t* response, Response r) {
    coap_pdu_set_code(response, static_cast<coap_pdu_code_t>(r.code));
    AddResponseOptions(response, r);
    if (r.body.empty()) return;
    auto* copy = new std::vector<uint8_t>(std::move(r.body));
    coap_add_data_large_response(resource, session, request, response, query,
                                 r.content_format, -1, 0, copy->size(),
                                 copy->data(), &Release, copy);
  }

  // A session whose device was disabled, removed or re-keyed since its
  // handshake, or which a newer session of the same device superseded, gets
  // 4.03 "session-revoked" on every resource, from the first request after
  // the CLI's commit or the newer handshake (the next tick closes it).
  static bool Revoked(coap_session_t* session) {
    CoapServer* s = Server(session);
    if (s->impl_->revocations.Superseded(session)) return true;
    return s->impl_->revocations.Refuses(
        session, [s](std::string_view id, const std::vector<uint8_t>& key) {
          return s->SessionStillValid(id, key);
        });
  }
  static Response RevokedResponse() {
    return ErrorResponse(Status::PermissionDenied(), "session-revoked", 0, 0);
  }

  // Whether libcoap calls the task handler for a notification: it has put
  // the Observe option in the response, whose type is CON or NON. A request
  // (even one registering) is answered with an ACK, except a non-confirmable
  // registration, which this therefore also counts (its answer is 2.03).
  static bool IsNotification(const coap_pdu_t* response) {
    coap_opt_iterator_t it;
    return coap_pdu_get_type(response) != COAP_MESSAGE_ACK &&
           coap_check_option(response, COAP_OPTION_OBSERVE, &it) != nullptr;
  }

  static void GetTask(coap_resource_t* resource, coap_session_t* session,
                      const coap_pdu_t* request, const coap_string_t* query,
                      coap_pdu_t* response) {
    CoapServer* s = Server(session);
    Response answer = Revoked(session) ? RevokedResponse()
                                       : s->handler_.Task(Identity(session),
                                                          CoapServer::NowMs());
    if (answer.code >= wire::CoapCode(3, 0) && IsNotification(response)) {
      // libcoap 4.3.1 frees the observer of a notification answered 4.xx or
      // 5.xx and then reads it to send that answer: a use after free that
      // crashed the daemon (fixed upstream in 4.3.2, commit 64de2ba4). A
      // notification the daemon cannot serve (superseded or revoked session,
      // device outside the running job) is 2.03 without a task instead: the
      // device registers again and gets the error as a response.
      answer = Response{};
      answer.code = wire::kCoapValid;
    }
    Send(resource, session, request, query, response, std::move(answer));
  }

  // One block of a Block1 upload (RFC 7959) into the session's partial
  // body: false if the request is answered here (2.31 for the next block,
  // or a refusal); true with the whole body in `body` after the last block.
  static bool AddBlock(CoapServer& s, coap_session_t* session,
                       const coap_pdu_t* request, const coap_opt_t* block1,
                       const uint8_t* data, size_t length, Response& answer,
                       std::vector<uint8_t>& body) {
    const uint32_t value =
        coap_decode_var_bytes(coap_opt_value(block1), coap_opt_length(block1));
    UploadAssembler::Block block;
    const uint32_t szx = value & 0x07u;
    block.offset = szx == 7 ? SIZE_MAX : size_t{value >> 4} << (szx + 4);
    block.more = (value & 0x08u) != 0;
    block.data = data;
    block.length = length;
    coap_opt_iterator_t it;
    if (const coap_opt_t* size1 =
            coap_check_option(request, COAP_OPTION_SIZE1, &it)) {
      block.size1 =
          coap_decode_var_bytes8(coap_opt_value(size1), coap_opt_length(size1));
    }
    const size_t limit = s.handler_.MaxUpdateBody();
    switch (s.impl_->uploads.Add(session, block, limit,
                                 static_cast<int64_t>(posix::MonotonicMs()),
                                 body)) {
      case UploadAssembler::Step::kComplete:
        return true;
      case UploadAssembler::Step::kContinue:
        answer.code = wire::kCoapContinue;
        return false;
      case UploadAssembler::Step::kTooLarge:
        answer = ErrorResponse(Status::OutOfRange(),
                               "body larger than the job's", 0, 0);
        answer.size1 = static_cast<uint32_t>(limit);
        return false;
      case UploadAssembler::Step::kIncomplete:
        answer =
            ErrorResponse(Status::DataLoss(), "block out of sequence", 0, 0);
        answer.code = wire::kCoapRequestEntityIncomplete;
        return false;
      case UploadAssembler::Step::kBusy:
        answer = ErrorResponse(Status::Unavailable(),
                               "too many uploads in progress", 0, 0);
        return false;
    }
    return false;
  }

  static void PostUpdate(coap_resource_t* resource, coap_session_t* session,
                         const coap_pdu_t* request, const coap_string_t* query,
                         coap_pdu_t* response) {
    CoapServer* s = Server(session);
    if (Revoked(session)) {
      Send(resource, session, request, query, response, RevokedResponse());
      return;
    }
    size_t length = 0;
    const uint8_t* data = nullptr;
    if (!coap_get_data(request, &length, &data)) {
      length = 0;
      data = nullptr;
    }
    std::optional<uint16_t> format;
    coap_opt_iterator_t it;
    if (coap_opt_t* opt =
            coap_check_option(request, COAP_OPTION_CONTENT_FORMAT, &it)) {
      format = static_cast<uint16_t>(
          coap_decode_var_bytes(coap_opt_value(opt), coap_opt_length(opt)));
    }
    std::vector<uint8_t> body;
    if (const coap_opt_t* block1 =
            coap_check_option(request, COAP_OPTION_BLOCK1, &it);
        block1 != nullptr && s->handler_.MaxUpdateBody() != 0) {
      Response answer;
      if (!AddBlock(*s, session, request, block1, data, length, answer, body)) {
        Send(resource, session, request, query, response, std::move(answer));
        return;
      }
      data = body.data();
      length = body.size();
    }
    Send(resource, session, request, query, response,
         s->handler_.Update(Identity(session), format, data, length,
                            CoapServer::NowMs()));
    s->NotifyIfRoundChanged();
  }

  static void GetModel(coap_resource_t* resource, coap_session_t* session,
                       const coap_pdu_t* request, const coap_string_t* query,
                       coap_pdu_t* response) {
    Send(resource, session, request, query, response,
         Revoked(session) ? RevokedResponse()
                          : Server(session)->handler_.Model(Identity(session)));
  }

  static void GetStatus(coap_resource_t* resource, coap_session_t* session,
                        const coap_pdu_t* request, const coap_string_t* query,
                        coap_pdu_t* response) {
    Send(resource, session, request, query, response,
         Revoked(session)
             ? RevokedResponse()
             : Server(session)->handler_.StatusOf(Identity(session)));
  }
};

int64_t CoapServer::NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

CoapServer::CoapServer(store::Database& db, const ServerOptions& options)
    : db_(&db),
      options_(options),
      impl_(std::make_unique<Impl>(
          db, static_cast<int64_t>(options.handshake_timeout_ms))) {}

CoapServer::~CoapServer() {
  if (impl_->endpoint_fd >= 0) EndpointReadFilter::Detach(impl_->endpoint_fd);
  impl_->io.reset();
  if (impl_->context != nullptr) coap_free_context(impl_->context);
  coap_cleanup();
}

Result<std::unique_ptr<CoapServer>> CoapServer::Create(
    store::Database& db, const ServerOptions& options) {
  coap_startup();
  coap_set_log_level(LOG_WARNING);
  coap_dtls_set_log_level(LOG_WARNING);
  std::unique_ptr<CoapServer> server(new CoapServer(db, options));
  if (!coap_dtls_is_supported()) {
    EDGEADMM_LOG_ERROR("server: libcoap has no DTLS support");
    return Status::Unavailable();
  }
  Impl& impl = *server->impl_;
  impl.registry_owner = std::make_unique<registry::DeviceRegistry>(db);
  impl.registry = impl.registry_owner.get();
  impl.decoy_psk.resize(registry::kPskBytes);
  EDGEADMM_TRY(
      registry::FillSecureRandom(impl.decoy_psk.data(), impl.decoy_psk.size()));

  coap_address_t address;
  coap_address_init(&address);
  if (inet_pton(AF_INET6, options.address.c_str(),
                &address.addr.sin6.sin6_addr) == 1) {
    address.addr.sin6.sin6_family = AF_INET6;
    address.size = sizeof(address.addr.sin6);
  } else if (inet_pton(AF_INET, options.address.c_str(),
                       &address.addr.sin.sin_addr) == 1) {
    address.addr.sin.sin_family = AF_INET;
    address.size = sizeof(address.addr.sin);
  } else {
    EDGEADMM_LOG_ERROR("server: bad listen address %s",
                       options.address.c_str());
    return Status::InvalidArgument();
  }
  coap_address_set_port(&address, options.port);

  impl.context = coap_new_context(nullptr);
  if (impl.context == nullptr) return Status::Unavailable();
  coap_set_app_data(impl.context, server.get());
  if (options.io_batch_reads > 0) {
    posix::CoapBatchedIoOptions io;
    io.max_endpoint_reads = options.io_batch_reads;
    impl.io = std::make_unique<posix::CoapBatchedIo>(impl.context, io);
  }
  coap_register_event_handler(impl.context, &CoapCallbacks::Event);
  coap_register_nack_handler(impl.context, &CoapCallbacks::Nack);
  // Block2 (large tasks and models) by libcoap; Block1 bodies reach the
  // handler block by block (UploadAssembler), not reassembled by libcoap.
  coap_context_set_block_mode(impl.context, COAP_BLOCK_USE_LIBCOAP);
  coap_context_set_session_timeout(impl.context,
                                   options.session_timeout_seconds);
  if (options.max_sessions > 0) {
    coap_context_set_max_idle_sessions(impl.context, options.max_sessions);
  }
  coap_context_set_max_handshake_sessions(impl.context, options.max_handshakes);

  coap_dtls_spsk_t psk{};
  psk.version = COAP_DTLS_SPSK_SETUP_VERSION;
  psk.validate_id_call_back = &CoapCallbacks::ValidateIdentity;
  psk.id_call_back_arg = server.get();
  if (!coap_context_set_psk2(impl.context, &psk)) {
    return Status::Unavailable();
  }
  coap_endpoint_t* endpoint =
      coap_new_endpoint(impl.context, &address, COAP_PROTO_DTLS);
  if (endpoint == nullptr) {
    EDGEADMM_LOG_ERROR("server: cannot listen on [%s]:%u",
                       options.address.c_str(), options.port);
    return Status::Unavailable();
  }
  server->port_ = options.port;
  if (const char* text = coap_endpoint_str(endpoint)) {
    // "[::]:5684" or "0.0.0.0:5684": the bound port follows the last ':'.
    const char* colon = std::strrchr(text, ':');
    if (colon != nullptr) {
      server->port_ = static_cast<uint16_t>(std::atoi(colon + 1));
    }
  }

  auto admission = HandshakeAdmission::Create(
      options.admission, static_cast<int64_t>(posix::MonotonicMs()));
  if (!admission.ok()) return admission.status();
  impl.admission.emplace(std::move(admission).value());
  impl.endpoint_fd = FindEndpointSocket(server->port_);
  if (const Status attached =
          EndpointReadFilter::Attach(impl.endpoint_fd, &*impl.admission);
      !attached.ok()) {
    EDGEADMM_LOG_ERROR("server: cannot filter the endpoint's handshakes: %s",
                       attached.str());
    impl.endpoint_fd = -1;
    return attached;
  }
  EDGEADMM_TRY(CoapCallbacks::TakeOverDtlsContext(impl.context, server->port_));

  if (options.receive_buffer_bytes > 0) {
    const int granted = SetReceiveBuffer(
        impl.endpoint_fd, static_cast<int>(options.receive_buffer_bytes));
    EDGEADMM_LOG_INFO("server: endpoint receive buffer %d bytes (asked %u)",
                      granted, options.receive_buffer_bytes);
  }

  struct ResourceSpec {
    const char* path;
    coap_request_t method;
    coap_method_handler_t handler;
  };
  const ResourceSpec specs[] = {
      {wire::kTaskPath, COAP_REQUEST_GET, &CoapCallbacks::GetTask},
      {wire::kUpdatePath, COAP_REQUEST_POST, &CoapCallbacks::PostUpdate},
      {wire::kModelPath, COAP_REQUEST_GET, &CoapCallbacks::GetModel},
      {wire::kStatusPath, COAP_REQUEST_GET, &CoapCallbacks::GetStatus},
  };
  for (const ResourceSpec& spec : specs) {
    const bool task = spec.handler == &CoapCallbacks::GetTask;
    const int flags = task && options.non_confirmable_notifications
                          ? COAP_RESOURCE_FLAGS_NOTIFY_NON_ALWAYS
                          : 0;
    coap_resource_t* r =
        coap_resource_init(coap_make_str_const(spec.path), flags);
    coap_register_handler(r, spec.method, spec.handler);
    coap_add_resource(impl.context, r);
    if (task) {
      coap_resource_set_get_observable(r, 1);
      impl.task = r;
    }
  }
  EDGEADMM_LOG_INFO("server: listening on coaps://[%s]:%u",
                    options.address.c_str(), server->port_);
  EDGEADMM_TRY(server->jobs_.PickUpRunningJob(NowMs()));
  return server;
}

void CoapServer::NotifyIfRoundChanged() {
  const rounds::RoundEngine* engine = jobs_.engine();
  if (engine == nullptr || impl_->task == nullptr) return;
  const int64_t round = engine->round_open() ? engine->round_id() : 0;
  const int state = static_cast<int>(engine->job().state);
  if (round == notified_round_ && state == notified_state_) return;
  notified_round_ = round;
  notified_state_ = state;
  coap_resource_notify_observers(impl_->task, nullptr);
}

void CoapServer::ApplyRevocations() {
  if (!impl_->revocations.DatabaseChanged()) return;
  // Another process committed.
  if (rounds::RoundEngine* engine = jobs_.engine()) {
    const Status status = engine->RegistryChanged();
    if (!status.ok()) {
      EDGEADMM_LOG_ERROR("server: revoked cohort members: %s", status.str());
    }
  }
  // Maybe a `devices disable`, `remove` or `rotate-key`: a session goes on
  // only while its identity is enabled with the key of its handshake.
  impl_->revocations.CutRevoked(
      [this](std::string_view id, const std::vector<uint8_t>& key) {
        return SessionStillValid(id, key);
      });
}

bool CoapServer::SessionStillValid(std::string_view identity,
                                   const std::vector<uint8_t>& key) const {
  auto psk = impl_->registry->LookupPsk(identity);
  if (psk.status() == Status::NotFound() ||
      psk.status() == Status::PermissionDenied()) {
    return false;
  }
  return !psk.ok() || *psk == key;  // a store error cuts nobody
}

Status CoapServer::Tick() {
  ApplyRevocations();
  jobs_.Tick(NowMs());
  NotifyIfRoundChanged();
  const auto now = static_cast<int64_t>(posix::MonotonicMs());
  impl_->janitor.DropStalled(now);
  impl_->revocations.CutSuperseded();
  impl_->uploads.DropStale(now);
  return Status::Ok();
}

Status CoapServer::RunOnce(int timeout_ms) {
  const int spent =
      impl_->io != nullptr
          ? impl_->io->Process(static_cast<uint32_t>(timeout_ms))
          : coap_io_process(impl_->context, static_cast<uint32_t>(timeout_ms));
  if (spent < 0) return Status::Internal();
  return Tick();
}

Status CoapServer::Run(const volatile std::sig_atomic_t* stop) {
  while (*stop == 0) {
    // Wake at least every 100 ms for deadlines and job changes.
    EDGEADMM_TRY(RunOnce(100));
  }
  EDGEADMM_LOG_INFO("server: shutting down");
  return Status::Ok();
}

}  // namespace edgeadmm::server
